package dev.rangekv.core.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The module rules of docs/architecture.md ("Modules") for {@code rangekv-core}, executable: the JDK only, no threads, no
 * clocks, no sockets or files, no RocksDB; and packages that depend on each other one way.
 */
@AnalyzeClasses(packages = "dev.rangekv.core", importOptions = ImportOption.DoNotIncludeTests.class)
class CoreArchitectureTest {

  @ArchTest
  static final ArchRule dependsOnTheJdkOnly = classes().that().resideInAPackage("dev.rangekv.core..")
      .should().onlyDependOnClassesThat().resideInAnyPackage("dev.rangekv.core..", "java..")
      .because("core is pure logic that every other module can call (docs/architecture.md, Modules)");

  @ArchTest
  static final ArchRule startsNoThreads = noClasses().that().resideInAPackage("dev.rangekv.core..")
      .should().dependOnClassesThat().resideInAPackage("java.util.concurrent..")
      .orShould().dependOnClassesThat().haveFullyQualifiedName(Thread.class.getName())
      .orShould().dependOnClassesThat().haveFullyQualifiedName(java.util.Timer.class.getName())
      .because("decisions are single-threaded; the shells own the threads (CONTRIBUTING.md, Code style)");

  @ArchTest
  static final ArchRule readsNoClock = noClasses().that().resideInAPackage("dev.rangekv.core..")
      .should().callMethod(System.class, "currentTimeMillis")
      .orShould().callMethod(System.class, "nanoTime")
      .orShould().callMethodWhere(com.tngtech.archunit.core.domain.JavaCall.Predicates.target(
          com.tngtech.archunit.base.DescribedPredicate.describe("now() of a java.time type",
              t -> t.getName().equals("now") && t.getOwner().getPackageName().equals("java.time"))))
      .orShould().dependOnClassesThat().haveFullyQualifiedName(java.time.Clock.class.getName())
      .because("core takes the time as a value; a clock in a decision makes tests timing-dependent");

  @ArchTest
  static final ArchRule doesNoIo = noClasses().that().resideInAPackage("dev.rangekv.core..")
      .should().dependOnClassesThat().resideInAnyPackage("java.net..", "java.nio.channels..", "java.nio.file..",
          "org.rocksdb..", "io.grpc..", "org.apache.ratis..")
      .orShould().dependOnClassesThat().haveNameMatching("java\\.io\\.File.*")
      .because("core does no I/O: sockets, files and RocksDB belong to server and storage");

  @ArchTest
  static final ArchRule packagesFormNoCycle = slices().matching("dev.rangekv.(**)").should().beFreeOfCycles();
}
