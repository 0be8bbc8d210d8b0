package dev.rangekv.testkit.docs;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The names a package doc mentions: every {@code {@link X}}, and every type-, package- or module-like word
 * inside {@code {@code ...}} and in the prose, and whether each exists in a {@link SourceIndex}.
 *
 * <p>A name counts as a type when a segment starts with an upper-case letter and has a lower-case one
 * ({@code RANGE_MOVED} and {@code BENCHMARKS.md} do not); in the prose only words of two humps or more
 * count ({@code RouteTable}, not {@code Raft}). Types outside the repository resolve against the JDK.
 */
final class PackageDoc {

  /** Product and library names the docs use in prose that are no type of ours nor of the JDK. */
  static final Set<String> NOT_TYPES = Set.of("RangeKV", "RocksDB", "BouncyCastle", "WebJar", "ECharts",
      "ReadIndex", "WriteBatch", "FoundationDB", "CockroachDB", "TiKV", "MicroRaft");

  private static final Pattern INLINE_TAG = Pattern.compile("\\{@(link|linkplain|code)\\s+([^}]*)}");
  private static final Pattern NAME = Pattern.compile("[A-Za-z_][\\w-]*(?:\\.[A-Za-z_][\\w-]*)*(?:#\\w+)?");
  private static final Pattern CAMEL = Pattern.compile("\\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\\b");
  private static final Pattern MODULE = Pattern.compile("\\brangekv-[a-z]+(?:-[a-z]+)*");
  private static final Set<String> EXTERNAL_ROOTS = Set.of("org", "com", "io", "net");
  private static final List<String> JDK_PACKAGES = List.of("java.lang", "java.util", "java.util.concurrent",
      "java.time", "java.io", "java.nio", "java.nio.file", "java.net");

  private PackageDoc() {}

  /** The text of the first javadoc comment in {@code source}, leading asterisks removed, on one line. */
  static String javadoc(String source) {
    int start = source.indexOf("/**");
    int end = source.indexOf("*/", start + 3);
    if (start < 0 || end < 0) {
      return "";
    }
    StringBuilder text = new StringBuilder();
    for (String line : source.substring(start + 3, end).split("\n")) {
      text.append(line.replaceFirst("^\\s*\\*\\s?", "")).append(' ');
    }
    return text.toString().replaceAll("\\s+", " ").trim();
  }

  /** The names in {@code doc} that name nothing in {@code index} nor in the JDK, in order of appearance. */
  static List<String> unresolved(String doc, SourceIndex index) {
    Set<String> missing = new LinkedHashSet<>();
    StringBuilder prose = new StringBuilder();
    Matcher tag = INLINE_TAG.matcher(doc);
    int last = 0;
    while (tag.find()) {
      prose.append(doc, last, tag.start()).append(' ');
      last = tag.end();
      String body = tag.group(2).trim();
      if (tag.group(1).startsWith("link")) {
        String target = body.split("\\s+")[0];
        if (!resolves(target, index)) {
          missing.add(target);
        }
      } else {
        checkModules(body, index, missing);
        Matcher name = NAME.matcher(body);
        while (name.find()) {
          if (!name.group().contains("-") && !resolves(name.group(), index)) {
            missing.add(name.group());
          }
        }
      }
    }
    prose.append(doc.substring(last));
    checkModules(prose, index, missing);
    Matcher word = CAMEL.matcher(prose);
    while (word.find()) {
      if (!NOT_TYPES.contains(word.group()) && !resolves(word.group(), index)) {
        missing.add(word.group());
      }
    }
    return new ArrayList<>(missing);
  }

  private static void checkModules(CharSequence text, SourceIndex index, Set<String> missing) {
    Matcher module = MODULE.matcher(text);
    while (module.find()) {
      if (!index.modules().contains(module.group())) {
        missing.add(module.group());
      }
    }
  }

  /** Whether a dotted name (a type, possibly qualified or with a member, or a package) exists. */
  static boolean resolves(String name, SourceIndex index) {
    String[] segments = name.split("#")[0].split("\\.");
    int typeAt = -1;
    for (int i = 0; i < segments.length && typeAt < 0; i++) {
      if (Character.isUpperCase(segments[i].charAt(0))) {
        typeAt = i;
      }
    }
    if (typeAt < 0) {
      return !isOurPackage(segments, index) || index.hasPackage(String.join(".", segments));
    }
    String type = segments[typeAt];
    if (type.chars().noneMatch(Character::isLowerCase)) {
      return true;
    }
    String qualifier = String.join(".", java.util.Arrays.copyOfRange(segments, 0, typeAt));
    if (qualifier.startsWith("java.") || qualifier.startsWith("javax.")) {
      return jdkType(qualifier, type);
    }
    if (EXTERNAL_ROOTS.contains(qualifier.split("\\.")[0])) {
      return true;
    }
    return index.hasType(qualifier, type) || (qualifier.isEmpty() && JDK_PACKAGES.stream()
        .anyMatch(p -> jdkType(p, type)));
  }

  /** Dotted lower-case names count as packages when they start at {@code dev} or at a module's short name. */
  private static boolean isOurPackage(String[] segments, SourceIndex index) {
    return segments.length >= 2 && !segments[0].isEmpty()
        && (segments[0].equals("dev") || index.modules().contains("rangekv-" + segments[0]));
  }

  private static boolean jdkType(String pkg, String type) {
    try {
      Class.forName(pkg + "." + type, false, PackageDoc.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }
}
