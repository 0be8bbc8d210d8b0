package dev.rangekv.meta.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** DESIGN.md's rules for {@code rangekv-meta}, executable (issue 17 §3): core, proto and Ratis below it. */
@AnalyzeClasses(packages = "dev.rangekv.meta", importOptions = ImportOption.DoNotIncludeTests.class)
class MetaArchitectureTest {

  @ArchTest
  static final ArchRule dependsOnCoreProtoAndRatisOnly = noClasses().that().resideInAPackage("dev.rangekv.meta..")
      .should().dependOnClassesThat().resideInAnyPackage("dev.rangekv.storage..", "dev.rangekv.server..",
          "dev.rangekv.client..", "dev.rangekv.cli..", "dev.rangekv.sim..", "org.rocksdb..")
      .because("the meta range runs on nodes but knows neither the node nor its engine (DESIGN.md, modules)");

  @ArchTest
  static final ArchRule packagesFormNoCycle = slices().matching("dev.rangekv.(**)").should().beFreeOfCycles();
}
