package dev.rangekv.proto.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** DESIGN.md's rules for {@code rangekv-proto}, executable (issue 17 §3): what clients need, nothing of a node. */
@AnalyzeClasses(packages = "dev.rangekv.proto", importOptions = ImportOption.DoNotIncludeTests.class)
class ProtoArchitectureTest {

  @ArchTest
  static final ArchRule dependsOnCoreProtobufAndGrpcOnly = noClasses().that().resideInAPackage("dev.rangekv.proto..")
      .should().dependOnClassesThat().resideInAnyPackage("dev.rangekv.storage..", "dev.rangekv.meta..",
          "dev.rangekv.server..", "dev.rangekv.client..", "dev.rangekv.cli..", "dev.rangekv.sim..", "org.rocksdb..",
          "org.apache.ratis..")
      .because("the protocol is on every client's classpath (DESIGN.md, modules)");

  @ArchTest
  static final ArchRule packagesFormNoCycle = slices().matching("dev.rangekv.proto.(**)").should().beFreeOfCycles();
}
