package dev.rangekv.server.dormancy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.dormancy.DormancyPolicy;
import dev.rangekv.server.consensus.FakeCluster;
import dev.rangekv.server.consensus.FakeNodes;
import dev.rangekv.server.consensus.ManualScheduler;
import dev.rangekv.server.raft.PeerChannels;
import dev.rangekv.server.replica.DormancyRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dormancy on three nodes of a {@link FakeCluster}, each with its own dormancy loop, waker and groups,
 * their timers on one {@link ManualScheduler} driven by the cluster's clock: an idle range's leader
 * proposes the dormancy entry and every replica closes its group with its storage kept; a wake reopens
 * them and finds a leader; a replica that was down when the others closed starts a wake on its own.
 */
class DormancyOnFakeEngineTest {
  private static final long IDLE_MILLIS = 1_000;
  private static final Duration HEARTBEAT = Duration.ofMillis(100);
  private static final Duration SILENT = Duration.ofMillis(2_000);

  @TempDir Path dir;
  private FakeCluster cluster;
  private FakeNodes nodes;
  private ManualScheduler scheduler;
  private PeerChannels channels;
  private final Map<String, RangeWaker> wakers = new HashMap<>();
  private final Map<String, DormancyTicker> tickers = new HashMap<>();

  @BeforeEach
  void start() {
    cluster = new FakeCluster(3, FakeCluster.Faults.NONE);
    nodes = new FakeNodes(cluster, dir, 3);
    scheduler = new ManualScheduler(cluster::now);
    channels = PeerChannels.ofCluster("");
    for (FakeNodes.Node n : nodes.all()) {
      RangeWaker.Node node = new RangeWaker.Node(n.id(), n.store(), n.directory(), n.engine(),
          new DormantGroups(n.engine(), n.directory()), channels, n.gateway(), scheduler, cluster::now);
      RangeWaker waker = new RangeWaker(node);
      DormancyTicker ticker = new DormancyTicker(node, waker, n.proposals(),
          new DormancyTicker.Settings(new DormancyPolicy(IDLE_MILLIS), HEARTBEAT, SILENT), scheduler);
      n.directory().onDormancyApplied(ticker::applied);
      wakers.put(n.id(), waker);
      tickers.put(n.id(), ticker);
    }
    nodes.bootstrap();
    cluster.electLeader(1, "n1");
    cluster.run();
  }

  @AfterEach
  void stop() {
    scheduler.shutdownNow();
    channels.close();
    nodes.close();
  }

  /** Ticks every node's dormancy loop, then lets messages and timers run for {@code millis} of the clock. */
  private void pass(long millis) {
    for (long t = 0; t < millis; t += 50) {
      tickers.values().forEach(DormancyTicker::tick);
      cluster.run();
      cluster.advance(50);
      scheduler.runDue();
      cluster.run();
    }
  }

  private boolean openOn(String node) {
    return nodes.node(node).engine().isOpen(1);
  }

  @Test
  void anIdleRange_goesDormant_andEveryReplicaClosesKeepingItsStorage() {
    pass(IDLE_MILLIS + 1_000);

    for (FakeNodes.Node n : nodes.all()) {
      assertThat(openOn(n.id())).as("group open on %s", n.id()).isFalse();
      assertThat(DormancyRecord.dormantAt(n.store(), 1)).as("dormancy mark on %s", n.id()).isPresent();
      assertThat(n.store().rangeState(1)).as("range record kept on %s", n.id()).isPresent();
    }
  }

  @Test
  void aQuietRange_isLeftAloneUntilItsIdlePeriodEnds_andStillGoesDormantOnTime() {
    nodes.all().forEach(n -> n.engine().quiet(1, 7));
    long awakeTicks = 0;
    for (long t = 0; t < IDLE_MILLIS / 2; t += 50) {
      awakeTicks++;
    }
    pass(IDLE_MILLIS / 2);
    assertThat(tickers.get("n1").visits()).as("visits of the leader's quiet range in %d ticks", awakeTicks)
        .isLessThan(awakeTicks / 2);

    pass(IDLE_MILLIS / 2 + 1_000);
    for (FakeNodes.Node n : nodes.all()) {
      assertThat(openOn(n.id())).as("group open on %s", n.id()).isFalse();
      assertThat(DormancyRecord.dormantAt(n.store(), 1)).as("dormancy mark on %s", n.id()).isPresent();
    }
  }

  @Test
  void aQuietRangeWhoseStampChanged_isVisitedAtTheNextTick() {
    nodes.all().forEach(n -> n.engine().quiet(1, 7));
    pass(IDLE_MILLIS / 2);
    long before = tickers.get("n1").visits();
    tickers.get("n1").tick();
    assertThat(tickers.get("n1").visits()).as("same stamp: skipped").isEqualTo(before);
    nodes.node("n1").engine().quiet(1, 8);
    tickers.get("n1").tick();
    assertThat(tickers.get("n1").visits()).as("another stamp: visited").isEqualTo(before + 1);
    tickers.get("n1").tick();
    assertThat(tickers.get("n1").visits()).as("and left alone again").isEqualTo(before + 1);
    nodes.node("n1").engine().quiet(1, 0);
    tickers.get("n1").tick();
    tickers.get("n1").tick();
    assertThat(tickers.get("n1").visits()).as("awake: every tick").isEqualTo(before + 3);
  }

  @Test
  void aWake_reopensEveryReplica_findsALeader_andRecordsTheWake() {
    pass(IDLE_MILLIS + 1_000);
    long mark = DormancyRecord.dormantAt(nodes.node("n2").store(), 1).orElseThrow();

    // n2 wakes it; the other nodes open theirs as their WakeRange handler would
    CompletableFuture<Void> woke = wakers.get("n2").wake(1, false);
    wakers.get("n1").wake(1, false);
    wakers.get("n3").wake(1, false);
    for (int i = 0; i < 20 && !woke.isDone(); i++) {
      pass(50);
    }

    assertThat(woke).isCompleted();
    assertThat(List.of("n1", "n2", "n3")).allMatch(this::openOn);
    assertThat(cluster.leaderOf(1)).isNotEmpty();
    pass(200); // the leader records the wake: an entry after the dormancy mark
    assertThat(nodes.leaderOf(1).directory().replica(1).orElseThrow().appliedIndex().orElseThrow())
        .isGreaterThan(mark);
  }

  @Test
  void aReplicaThatMissedTheDormancyEntry_startsAWakeOnceLeaderlessForTheSilentPeriod() {
    // the leader proposes the dormancy entry while n3 still answers; n3 goes down before it arrives
    long before = cluster.lastIndex(1);
    for (int i = 0; i < 100 && cluster.lastIndex(1) == before; i++) {
      tickers.get("n1").tick();
      cluster.advance(50);
    }
    assertThat(cluster.lastIndex(1)).as("the leader proposed the dormancy entry").isGreaterThan(before);
    nodes.node("n3").engine().close(1); // down, storage kept
    pass(2_000);
    assertThat(openOn("n1")).isFalse();
    assertThat(openOn("n2")).isFalse();
    assertThat(DormancyRecord.dormantAt(nodes.node("n3").store(), 1)).as("n3 never applied the entry").isEmpty();

    // n3 comes back (its node reopens what it holds awake) and finds no leader: the others sleep
    nodes.node("n3").engine().reopen(1, dev.rangekv.server.consensus.Member.of(
        nodes.node("n3").directory().replicaRecord(1)));
    pass(SILENT.toMillis() + 500);

    assertThat(wakers.get("n3").isWaking(1) || wakers.get("n3").lastRequestMillis(1) > 0)
        .as("n3 started a wake of the range").isTrue();
  }
}
