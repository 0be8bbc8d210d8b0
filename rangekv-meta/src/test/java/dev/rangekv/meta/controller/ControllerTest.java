package dev.rangekv.meta.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.controller.TickPlan;
import dev.rangekv.core.key.Key;
import dev.rangekv.meta.state.RangeWire;
import dev.rangekv.proto.EventProto;
import dev.rangekv.proto.FigureProto;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.convert.ProtoValues;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ControllerTest {
  static Key k(int i) {
    return Key.utf8(String.format("k%05d", i));
  }

  static double figure(EventProto e, String name) {
    return e.getFiguresList().stream().filter(f -> f.getName().equals(name)).mapToDouble(FigureProto::getValue)
        .findFirst().orElseThrow(() -> new AssertionError("no figure " + name + " in " + e));
  }

  /** 12 ranges of 3000 bytes each (above min-bytes, below max-bytes) on n1..n3. */
  static FakeCluster twelveRangesOnThreeNodes(String... extraNodes) {
    List<String> all = new ArrayList<>(List.of("n1", "n2", "n3"));
    all.addAll(List.of(extraNodes));
    FakeCluster c = new FakeCluster(all.toArray(String[]::new));
    List<Key> splits = new ArrayList<>();
    for (int i = 1; i < 12; i++) {
      splits.add(k(100 * i));
    }
    c.tile(splits, List.of("n1", "n2", "n3"));
    for (int i = 0; i < 12; i++) {
      for (int j = 0; j < 30; j++) {
        c.put(k(100 * i + j), 100);
      }
    }
    return c;
  }

  static List<String> callsStarting(FakeCluster c, String prefix) {
    return c.calls().stream().filter(s -> s.startsWith(prefix)).toList();
  }

  @Test
  void bigRange_isSplitAtTheStoresMidpoint_once() {
    FakeCluster c = new FakeCluster("n1", "n2", "n3");
    c.tile(List.of(), List.of("n1", "n2", "n3"));
    for (int i = 0; i < 180; i++) {
      c.put(k(i), 100);
    }
    Harness h = new Harness(c).start();

    h.tick();

    assertThat(callsStarting(c, "split")).containsExactly("split r1 at midpoint");
    h.assertMapMatchesCluster();
    assertThat(h.meta.view().ranges()).hasSize(2);
    EventProto split = h.events("split").get(0);
    assertThat(split.getRangeIdsList()).containsExactly(1L, 2L);
    assertThat(figure(split, "bytes")).isEqualTo(18_000);
    assertThat(figure(split, "maxBytes")).isEqualTo(10_000);
    assertThat(figure(split, "cause")).isEqualTo(1.0);
    assertThat(split.getDetail()).contains("r1 split at k00090 ");

    // The left half's last stats predate the split: without a new heartbeat it is not split again.
    h.controller.tick(h.clock.get() + 1);
    h.tick();
    h.tick();
    assertThat(callsStarting(c, "split")).hasSize(1);
    assertThat(c.ranges()).extracting(FakeCluster.FakeRange::bytes).containsExactly(9_000L, 9_000L);
  }

  @Test
  void emptyFourthNode_receivesMovesUntilBalancedWithinTolerance() {
    FakeCluster c = twelveRangesOnThreeNodes();
    Harness h = new Harness(c).start();
    c.addNode("n4");
    h.register("n4");

    int quiet = 0;
    for (int t = 0; t < 100 && quiet < 3; t++) {
      TickPlan plan = h.tick().orElseThrow();
      assertThat(plan.rebalance().moves().size()).isLessThanOrEqualTo(h.controller.config().maxMovesInFlight());
      quiet = plan.rebalance().isEmpty() && plan.repair().moves().isEmpty() ? quiet + 1 : 0;
    }

    assertThat(quiet).as("controller settles").isEqualTo(3);
    Map<String, Integer> counts = c.replicaCounts();
    assertThat(counts.values()).allSatisfy(n -> assertThat(n).isBetween(8, 10));
    h.assertMapMatchesCluster();
    // one move operator per replica moved: (leadership off,) one replace of the source by the target;
    // ranges of 3 replicas never add then remove (never a fourth voter)
    assertThat(h.events("move")).hasSize(callsStarting(c, "replace").size()).isNotEmpty();
    assertThat(callsStarting(c, "add")).isEmpty();
    assertThat(callsStarting(c, "remove")).isEmpty();
    assertThat(h.events("failed")).isEmpty();
    // Leaders spread too: nobody leads more than mean + 1 (12 / 4 = 3).
    Map<String, Long> leaders = new java.util.HashMap<>();
    c.ranges().forEach(r -> leaders.merge(r.leader, 1L, Long::sum));
    assertThat(leaders.values()).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(4));
  }

  @Test
  void deadNode_hasItsReplicasRecreatedOnLiveNodes() {
    FakeCluster c = twelveRangesOnThreeNodes("n4");
    Harness h = new Harness(c).start();
    h.tick();
    c.kill("n3");

    for (int t = 0; t < 60 && !fullyRepaired(c, "n3"); t++) {
      h.tick();
    }

    assertThat(fullyRepaired(c, "n3")).isTrue();
    h.assertMapMatchesCluster();
    // every replace is of the dead node's replicas, except those of a rebalancing move off a live node
    // (moves planned on the first tick, before n3 died, still land; one off n3 replaces n3's replica)
    assertThat(callsStarting(c, "replace")).filteredOn(s -> !s.contains(" n3 "))
        .hasSize((int) h.events("move").stream().filter(e -> !e.getDetail().contains(" n3 -> ")).count());
    assertThat(callsStarting(c, "replace")).filteredOn(s -> s.contains(" n3 ")).isNotEmpty();
    assertThat(h.events("node-dead")).singleElement()
        .satisfies(e -> assertThat(e.getDetail()).contains("n3"));
    assertThat(h.events("repair")).isNotEmpty()
        .allSatisfy(e -> assertThat(e.getReason()).isEqualTo("replica on a dead node: re-create it"));
  }

  private static boolean fullyRepaired(FakeCluster c, String deadNode) {
    return c.ranges().stream().allMatch(r -> r.replicas.size() == 3 && !r.replicas.contains(deadNode));
  }

  @Test
  void atMostMaxMovesInFlight_whileMovesAreSlow() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      FakeCluster c = twelveRangesOnThreeNodes();
      Harness h = new Harness(c, Harness.CONFIG, pool).start();
      c.addNode("n4");
      h.register("n4");
      CountDownLatch gate = new CountDownLatch(1);
      c.gateMoves(gate);

      h.tick();
      await(() -> c.activeMoves.get() == 2);
      for (int t = 0; t < 5; t++) {
        h.tick();
      }

      assertThat(h.controller.movesInFlight()).hasSize(2);
      assertThat(c.maxActiveMoves.get()).isEqualTo(2);
      gate.countDown();
      await(() -> h.controller.movesInFlight().isEmpty());
      c.gateMoves(null);
      for (int t = 0; t < 20; t++) {
        h.tick();
        await(() -> h.controller.movesInFlight().isEmpty());
      }
      assertThat(c.maxActiveMoves.get()).isEqualTo(2);
      assertThat(c.replicaCounts().get("n4")).isGreaterThanOrEqualTo(8);
    } finally {
      pool.shutdownNow();
    }
  }

  static void await(BooleanSupplier condition) {
    dev.rangekv.testkit.Await.until(Duration.ofSeconds(10), Duration.ofMillis(5), "the condition", condition);
  }

  @Test
  void failedStep_becomesAFailedEvent_andIsRetriedAfterTheBackoff() {
    FakeCluster c = new FakeCluster("n1", "n2", "n3");
    c.tile(List.of(), List.of("n1", "n2", "n3"));
    for (int i = 0; i < 180; i++) {
      c.put(k(i), 100);
    }
    Harness h = new Harness(c).start();
    c.failNext("split", new IllegalStateException("disk on fire"));

    h.tick();

    assertThat(h.events("failed")).singleElement().satisfies(e -> {
      assertThat(e.getReason()).isEqualTo("split failed: disk on fire");
      assertThat(e.getDetail()).contains("size above max-bytes");
      assertThat(e.getRangeIdsList()).containsExactly(1L);
      assertThat(figure(e, "bytes")).isEqualTo(18_000);
    });
    assertThat(h.meta.view().ranges()).hasSize(1);

    for (int t = 0; t < Controller.FAILURE_BACKOFF_TICKS; t++) {
      assertThat(callsStarting(c, "split")).hasSize(1);
      h.tick();
    }
    assertThat(callsStarting(c, "split")).hasSize(2);
    assertThat(h.meta.view().ranges()).hasSize(2);
    h.assertMapMatchesCluster();
  }

  @Test
  void smallColdNeighbours_mergeOnlyAfterTheSplitCooldown() throws Exception {
    FakeCluster c = new FakeCluster("n1", "n2", "n3");
    c.tile(List.of(), List.of("n1", "n2", "n3"));
    for (int i = 0; i < 20; i++) {
      c.put(k(i), 100);
    }
    Harness h = new Harness(c).start();
    RangeDescriptorProto right = RangeWire.proto(h.meta.view(), h.controller.split(1, Optional.of(k(10)))
        .get(5, TimeUnit.SECONDS).right());

    for (int t = 0; t < 3; t++) {
      h.tick();
    }
    assertThat(callsStarting(c, "merge")).isEmpty();
    assertThat(h.events("merge-declined")).singleElement()
        .satisfies(e -> assertThat(e.getReason()).startsWith("split within merge.split-cooldown"));

    for (int t = 0; t < 5 && callsStarting(c, "merge").isEmpty(); t++) {
      h.tick();
    }
    assertThat(callsStarting(c, "merge")).containsExactly("merge r1 r" + right.getRangeId());
    assertThat(h.events("merge")).singleElement()
        .satisfies(e -> assertThat(e.getRangeIdsList()).containsExactly(1L, right.getRangeId()));
    h.assertMapMatchesCluster();
  }

  @Test
  void sustainedEvenLoad_splitsAtTheWeightedMedian_thenMovesTheHotterHalfAway() {
    FakeCluster c = new FakeCluster("n1", "n2", "n3", "n4");
    c.tile(List.of(), List.of("n1", "n2", "n3"));
    List<dev.rangekv.proto.WeightedKeyProto> samples = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      c.put(k(i), 30);
      samples.add(dev.rangekv.proto.WeightedKeyProto.newBuilder().setKey(ProtoValues.bytes(k(i)))
          .setWeight(i < 60 ? 30 : 70).build());
    }
    c.load(1, 5000, samples);
    Harness h = new Harness(c).start();

    for (int t = 0; t < 2; t++) {
      h.tick();
    }
    assertThat(callsStarting(c, "split")).as("a burst shorter than 3 intervals splits nothing").isEmpty();
    h.tick();
    // weights 30 x 60 keys then 70 x 40 keys: total 4600, the median cut leaves 2290 below k00067
    assertThat(callsStarting(c, "split")).containsExactly("split r1 at \"k00067\"");
    EventProto split = h.events("split").get(0);
    assertThat(figure(split, "cause")).isEqualTo(2.0);
    assertThat(split.getReason()).startsWith("sustained load above split.qps");

    for (int t = 0; t < 3; t++) {
      h.tick();
    }
    assertThat(h.events("move")).anySatisfy(e -> {
      assertThat(e.getReason()).isEqualTo("load split: move the hotter half away from its sibling");
      assertThat(e.getRangeIdsList()).containsExactly(split.getRangeIds(1));
    });
    h.assertMapMatchesCluster();
  }

  @Test
  void notLeader_ticksNothing_andStartsOverOnGainingLeadership() {
    FakeCluster c = twelveRangesOnThreeNodes("n4");
    Harness h = new Harness(c).start();
    h.meta.setLeader(false, "n2");
    assertThat(h.controller.tick(h.clock.get())).isEmpty();
    assertThat(c.calls()).isEmpty();
    h.meta.setLeader(true, "n1");
    assertThat(h.tick()).isPresent();
  }
}
