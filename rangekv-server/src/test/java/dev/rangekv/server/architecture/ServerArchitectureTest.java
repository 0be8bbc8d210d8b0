package dev.rangekv.server.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The module rules of docs/architecture.md ("Modules") for {@code rangekv-server}, executable. */
@AnalyzeClasses(packages = "dev.rangekv.server", importOptions = ImportOption.DoNotIncludeTests.class)
class ServerArchitectureTest {

  @ArchTest
  static final ArchRule neverDependsOnClientsOrTools = noClasses().that().resideInAPackage("dev.rangekv.server..")
      .should().dependOnClassesThat().resideInAnyPackage("dev.rangekv.client..", "dev.rangekv.cli..",
          "dev.rangekv.sim..")
      .because("a node serves clients; it is not one (docs/architecture.md, Modules)");

  @ArchTest
  static final ArchRule leavesRocksDbToStorage = noClasses().that().resideInAPackage("dev.rangekv.server..")
      .should().dependOnClassesThat().resideInAPackage("org.rocksdb..")
      .because("RocksDB is visible only in rangekv-storage (docs/architecture.md, Modules)");

  @ArchTest
  static final ArchRule runsNoBlockingMoveChain = noClasses().that().resideInAPackage("dev.rangekv.server..")
      .and().haveNameNotMatching("dev\\.rangekv\\.server\\.move\\.NodeAdminClient.*")
      .should().dependOnClassesThat().haveNameMatching("dev\\.rangekv\\.server\\.move\\.NodeAdminClient.*")
      .because("the controller runs moves as operators, one async node-admin call per step (docs/decisions/0004-operators-in-the-controller.md);"
          + " NodeAdminClient's blocking chain is a tool for tests and benchmarks");

  @ArchTest
  static final ArchRule ratisStaysInItsAdapter = noClasses().that().resideOutsideOfPackage("dev.rangekv.server.ratis..")
      .should().dependOnClassesThat().resideInAnyPackage("org.apache.ratis..", "dev.rangekv.meta.ratis..")
      .because("the node talks to Raft through its own seam (dev.rangekv.server.consensus); Ratis is one adapter"
          + " that another engine replaces without touching the operations");

  @ArchTest
  static final ArchRule microRaftStaysInItsEngine = noClasses().that().resideOutsideOfPackage("dev.rangekv.server.multiraft..")
      .should().dependOnClassesThat().resideInAPackage("io.microraft..")
      .because("the experimental multi-raft engine is the other adapter behind the seam (docs/decisions/0013)");

  @ArchTest
  static final ArchRule onlyTheNodeWiresTheAdapter = noClasses().that().resideOutsideOfPackages(
          "dev.rangekv.server.ratis..", "dev.rangekv.server.node..")
      .should().dependOnClassesThat().resideInAPackage("dev.rangekv.server.ratis..")
      .because("operations (raft, replica, move, merge, dormancy, split, rpc, stats, observe, meta) see the"
          + " consensus seam only; the node starts the engine");

  @ArchTest
  static final ArchRule packagesFormNoCycle = slices().matching("dev.rangekv.(**)").should().beFreeOfCycles();
}
