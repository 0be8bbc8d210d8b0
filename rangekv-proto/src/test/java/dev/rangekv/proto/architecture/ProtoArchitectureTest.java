package dev.rangekv.proto.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The module rules of docs/architecture.md ("Modules") for {@code rangekv-proto}, executable: what clients need, nothing of a node. */
@AnalyzeClasses(packages = "dev.rangekv.proto", importOptions = ImportOption.DoNotIncludeTests.class)
class ProtoArchitectureTest {

  @ArchTest
  static final ArchRule dependsOnCoreProtobufAndGrpcOnly = noClasses().that().resideInAPackage("dev.rangekv.proto..")
      .should().dependOnClassesThat().resideInAnyPackage("dev.rangekv.storage..", "dev.rangekv.meta..",
          "dev.rangekv.server..", "dev.rangekv.client..", "dev.rangekv.cli..", "dev.rangekv.sim..", "org.rocksdb..",
          "org.apache.ratis..")
      .because("the protocol is on every client's classpath (docs/architecture.md, Modules)");

  @ArchTest
  static final ArchRule packagesFormNoCycle = slices().matching("dev.rangekv.proto.(**)").should().beFreeOfCycles();
}
