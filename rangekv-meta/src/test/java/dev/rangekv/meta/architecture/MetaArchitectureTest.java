package dev.rangekv.meta.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.util.Set;

/** The module rules of docs/architecture.md ("Modules") for {@code rangekv-meta}, executable: core, proto and Ratis below it. */
@AnalyzeClasses(packages = "dev.rangekv.meta", importOptions = ImportOption.DoNotIncludeTests.class)
class MetaArchitectureTest {

  @ArchTest
  static final ArchRule dependsOnCoreProtoAndRatisOnly = noClasses().that().resideInAPackage("dev.rangekv.meta..")
      .should().dependOnClassesThat().resideInAnyPackage("dev.rangekv.storage..", "dev.rangekv.server..",
          "dev.rangekv.client..", "dev.rangekv.cli..", "dev.rangekv.sim..", "org.rocksdb..")
      .because("the meta range runs on nodes but knows neither the node nor its engine (docs/architecture.md, Modules)");

  @ArchTest
  static final ArchRule ratisStaysInItsAdapter = noClasses().that().resideOutsideOfPackage("dev.rangekv.meta.ratis..")
      .should().dependOnClassesThat().resideInAPackage("org.apache.ratis..")
      .because("the meta range's state and controller know no consensus library: Ratis is one adapter"
          + " (dev.rangekv.meta.ratis) that a multi-raft engine replaces without touching them");

  @ArchTest
  static final ArchRule packagesFormNoCycle = slices().matching("dev.rangekv.(**)").should().beFreeOfCycles();

  /**
   * The classes where wire messages are read and built ("wire types stay at the edges", CONTRIBUTING.md, "Code style"):
   * the gRPC service adapters, the outbound node calls, the Raft command codec, the Raft shell and the
   * snapshot. Everything else in meta passes core values and {@code MetaChange}s.
   */
  static final Set<String> WIRE_EDGES = Set.of(
      "dev.rangekv.meta.controller.MetaAnswers",
      "dev.rangekv.meta.controller.MetaNodeServiceImpl",
      "dev.rangekv.meta.controller.MetaServiceImpl",
      "dev.rangekv.meta.controller.RangeWatchers",
      "dev.rangekv.meta.controller.StepCalls",
      "dev.rangekv.meta.controller.MetaReplicaCalls",
      "dev.rangekv.meta.state.MetaCommands",
      "dev.rangekv.meta.state.MetaState",
      "dev.rangekv.meta.ratis.MetaStateMachine",
      "dev.rangekv.meta.ratis.RaftMetaGroup",
      "dev.rangekv.meta.ratis.LeaderSnapshotFetch",
      "dev.rangekv.meta.state.RangeWire");

  /** A class is an edge when its top-level class is (nested records and lambdas of an edge are too). */
  static final DescribedPredicate<JavaClass> WIRE_EDGE = DescribedPredicate.describe("a wire edge",
      c -> WIRE_EDGES.contains(c.getName().split("\\$", 2)[0]));

  @ArchTest
  static final ArchRule onlyTheEdgesTouchWireMessages = noClasses().that().resideInAPackage("dev.rangekv.meta..")
      .and(not(WIRE_EDGE))
      .should().dependOnClassesThat().resideInAPackage("dev.rangekv.proto..")
      .because("meta state and the controller pass core values; wire messages are read and built at the edges");
}
