package dev.rangekv.sim.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The module rules of docs/architecture.md ("Modules") for {@code rangekv-sim}, executable: pure like core, core the only module below it. */
@AnalyzeClasses(packages = "dev.rangekv.sim", importOptions = ImportOption.DoNotIncludeTests.class)
class SimArchitectureTest {

  @ArchTest
  static final ArchRule dependsOnCoreAndTheJdkOnly = classes().that().resideInAPackage("dev.rangekv.sim..")
      .should().onlyDependOnClassesThat().resideInAnyPackage("dev.rangekv.sim..", "dev.rangekv.core..", "java..")
      .because("the partitioning lab is pure and the store never runs it (docs/architecture.md, Modules)");

  @ArchTest
  static final ArchRule packagesFormNoCycle = slices().matching("dev.rangekv.(**)").should().beFreeOfCycles();

  @ArchTest
  static final ArchRule readsNoClock = noClasses().that().resideInAPackage("dev.rangekv.sim..")
      .should().callMethod(System.class, "currentTimeMillis").orShould().callMethod(System.class, "nanoTime")
      .because("simulations are deterministic: the same seed gives the same figures");
}
