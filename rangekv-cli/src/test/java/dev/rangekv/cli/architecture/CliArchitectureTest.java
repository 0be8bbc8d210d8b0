package dev.rangekv.cli.architecture;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The CLI may use every module (docs/architecture.md, "Modules"); its own packages still depend one way. */
@AnalyzeClasses(packages = "dev.rangekv.cli", importOptions = ImportOption.DoNotIncludeTests.class)
class CliArchitectureTest {

  @ArchTest
  static final ArchRule packagesFormNoCycle = slices().matching("dev.rangekv.(**)").should().beFreeOfCycles();
}
