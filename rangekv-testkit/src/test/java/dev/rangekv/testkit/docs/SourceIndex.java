package dev.rangekv.testkit.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The types, packages and modules the repository's sources declare, read from the files (Java and
 * protobuf) rather than from a classpath, so that one test can see every module. Immutable once read.
 */
record SourceIndex(Map<String, Set<String>> packagesByType, Set<String> packages, Set<String> modules,
    List<Path> packageInfos) {

  private static final Pattern JAVA_TYPE =
      Pattern.compile("\\b(?:class|interface|enum|record|@interface)\\s+([A-Z]\\w*)");
  private static final Pattern PROTO_TYPE = Pattern.compile("(?m)^\\s*(?:message|service|enum|rpc)\\s+(\\w+)");
  private static final Pattern PROTO_PACKAGE = Pattern.compile("option\\s+java_package\\s*=\\s*\"([\\w.]+)\"");

  /** Reads every {@code rangekv-*} module under {@code root}: its main and test Java sources and its protos. */
  static SourceIndex read(Path root) {
    Map<String, Set<String>> types = new HashMap<>();
    Set<String> packages = new HashSet<>();
    Set<String> modules = new HashSet<>();
    List<Path> infos;
    try (Stream<Path> dirs = Files.list(root)) {
      List<Path> moduleDirs = dirs.filter(d -> d.getFileName().toString().startsWith("rangekv-"))
          .filter(d -> Files.isRegularFile(d.resolve("pom.xml"))).sorted().toList();
      for (Path module : moduleDirs) {
        modules.add(module.getFileName().toString());
        for (String src : List.of("src/main/java", "src/test/java")) {
          readJava(module.resolve(src), types, packages);
        }
        readProtos(module.resolve("src/main/proto"), types, packages);
      }
      infos = moduleDirs.stream().flatMap(m -> javaFiles(m.resolve("src/main/java")).stream())
          .filter(p -> p.getFileName().toString().equals("package-info.java")).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new SourceIndex(Map.copyOf(types), Set.copyOf(packages), Set.copyOf(modules), infos);
  }

  /** The package a source file under {@code srcRoot} belongs to, from its directory. */
  static String packageOf(Path srcRoot, Path file) {
    return srcRoot.relativize(file.getParent()).toString().replace(java.io.File.separatorChar, '.');
  }

  /** Whether a package exists whose name is {@code qualifier} or ends with {@code "." + qualifier}. */
  boolean hasPackage(String qualifier) {
    return packages.stream().anyMatch(p -> p.equals(qualifier) || p.endsWith("." + qualifier));
  }

  /** Whether {@code type} is declared in a package named {@code qualifier} or ending with it (any package if empty). */
  boolean hasType(String qualifier, String type) {
    Set<String> in = packagesByType.getOrDefault(type, Set.of());
    return qualifier.isEmpty() ? !in.isEmpty()
        : in.stream().anyMatch(p -> p.equals(qualifier) || p.endsWith("." + qualifier));
  }

  private static void readJava(Path srcRoot, Map<String, Set<String>> types, Set<String> packages) {
    for (Path file : javaFiles(srcRoot)) {
      String pkg = packageOf(srcRoot, file);
      packages.add(pkg);
      if (file.getFileName().toString().equals("package-info.java")) {
        continue;
      }
      Matcher m = JAVA_TYPE.matcher(text(file));
      while (m.find()) {
        types.computeIfAbsent(m.group(1), k -> new HashSet<>()).add(pkg);
      }
    }
  }

  private static void readProtos(Path protoRoot, Map<String, Set<String>> types, Set<String> packages) {
    if (!Files.isDirectory(protoRoot)) {
      return;
    }
    try (Stream<Path> files = Files.walk(protoRoot)) {
      for (Path file : files.filter(p -> p.toString().endsWith(".proto")).toList()) {
        String text = text(file);
        Matcher pkg = PROTO_PACKAGE.matcher(text);
        String javaPackage = pkg.find() ? pkg.group(1) : "";
        packages.add(javaPackage);
        Matcher m = PROTO_TYPE.matcher(text);
        while (m.find()) {
          types.computeIfAbsent(m.group(1), k -> new HashSet<>()).add(javaPackage);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<Path> javaFiles(Path srcRoot) {
    if (!Files.isDirectory(srcRoot)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(srcRoot)) {
      return files.filter(p -> p.toString().endsWith(".java")).sorted().collect(Collectors.toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String text(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
