package dev.rangekv.storage.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The module rules of docs/architecture.md ("Modules") for {@code rangekv-storage}, executable: core and RocksDB below it, nothing above. */
@AnalyzeClasses(packages = "dev.rangekv.storage", importOptions = ImportOption.DoNotIncludeTests.class)
class StorageArchitectureTest {

  @ArchTest
  static final ArchRule dependsOnCoreAndRocksDbOnly = noClasses().that().resideInAPackage("dev.rangekv.storage..")
      .should().dependOnClassesThat().resideInAnyPackage("dev.rangekv.proto..", "dev.rangekv.meta..",
          "dev.rangekv.server..", "dev.rangekv.client..", "dev.rangekv.cli..", "dev.rangekv.sim..", "io.grpc..",
          "com.google.protobuf..", "org.apache.ratis..")
      .because("the engine of one node knows keys and bytes, not the protocol or Raft (docs/architecture.md, Modules)");

  @ArchTest
  static final ArchRule packagesFormNoCycle = slices().matching("dev.rangekv.(**)").should().beFreeOfCycles();
}
