package dev.rangekv.testkit.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Package docs say what each package holds today: every {@code package-info.java} of every module may name
 * only classes, packages and modules that exist, every main package has one, and one that lists its
 * sub-packages names them all (docs/architecture.md, "Package docs"). It reads the sources of all modules
 * from the repository root as files, so it lives in {@code rangekv-testkit}, which depends on no other module.
 */
class PackageDocsTest {

  private static Path root;
  private static SourceIndex index;

  @BeforeAll
  static void readSources() {
    root = repositoryRoot(Path.of("").toAbsolutePath());
    index = SourceIndex.read(root);
  }

  @Test
  void everyPackageDoc_namesOnlyTypesPackagesAndModulesThatExist() {
    List<String> stale = new ArrayList<>();
    for (Path info : index.packageInfos()) {
      for (String name : PackageDoc.unresolved(PackageDoc.javadoc(SourceIndex.text(info)), index)) {
        stale.add(root.relativize(info) + ": " + name);
      }
    }
    assertThat(index.packageInfos()).hasSizeGreaterThan(50);
    assertThat(stale).as("names in package docs that exist nowhere in the sources").isEmpty();
  }

  @Test
  void everyMainPackage_hasAPackageDoc() {
    List<Path> undocumented = new ArrayList<>();
    for (String module : index.modules()) {
      Path src = root.resolve(module).resolve("src/main/java");
      try (var files = Files.walk(src)) {
        files.filter(p -> p.toString().endsWith(".java")).map(Path::getParent).distinct()
            .filter(dir -> !Files.exists(dir.resolve("package-info.java")))
            .forEach(dir -> undocumented.add(root.relativize(dir)));
      } catch (java.io.IOException e) {
        if (Files.exists(src)) {
          throw new java.io.UncheckedIOException(e);
        }
      }
    }
    assertThat(undocumented).isEmpty();
  }

  @Test
  void aPackageDocListingItsSubPackages_namesEveryOne() {
    List<String> unnamed = new ArrayList<>();
    for (Path info : index.packageInfos()) {
      String doc = PackageDoc.javadoc(SourceIndex.text(info));
      if (!doc.toLowerCase(java.util.Locale.ROOT).contains("sub-packages")) {
        continue;
      }
      try (var children = Files.list(info.getParent())) {
        for (Path child : children.filter(d -> Files.exists(d.resolve("package-info.java"))).sorted().toList()) {
          String name = child.getFileName().toString();
          if (!doc.contains("{@code " + name + "}")) {
            unnamed.add(root.relativize(info) + ": " + name);
          }
        }
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    assertThat(unnamed).as("sub-packages missing from a package doc that lists its sub-packages").isEmpty();
  }

  @Test
  void aClassThatNoLongerExists_isReported() {
    String doc = PackageDoc.javadoc("""
        /**
         * Holds {@link dev.rangekv.core.rangemap.RangeMap} and {@link
         * dev.rangekv.core.rangemap.GoneRangeMap}; {@code node.GroupReconciler} and {@code split.GroupReconciler},
         * {@code RouteTable}, {@code core.nowhere}, {@code rangekv-nowhere}, and in prose OldRouteTable.
         */
        package dev.rangekv.example;
        """);
    assertThat(PackageDoc.unresolved(doc, index)).containsExactly("dev.rangekv.core.rangemap.GoneRangeMap",
        "split.GroupReconciler", "core.nowhere", "rangekv-nowhere", "OldRouteTable");
  }

  @Test
  void jdkTypesProductNamesAndNonTypeWords_areNotReported() {
    String doc = PackageDoc.javadoc("""
        /**
         * A {@code TreeMap}, a {@code CompletableFuture}, {@link java.util.concurrent.Executor}, RocksDB,
         * {@code RANGE_MOVED}, {@code BENCHMARKS.md}, {@code controller.tick}, {@code --cluster} and
         * {@code KvService.Calls} (a protobuf service) over {@code rangekv-core}.
         */
        """);
    assertThat(PackageDoc.unresolved(doc, index)).isEmpty();
  }

  static Path repositoryRoot(Path from) {
    for (Path dir = from; dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("pom.xml")) && Files.isDirectory(dir.resolve("rangekv-core"))) {
        return dir;
      }
    }
    throw new IllegalStateException("no RangeKV repository root above " + from);
  }
}
