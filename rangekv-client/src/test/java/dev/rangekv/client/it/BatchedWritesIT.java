package dev.rangekv.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.client.AmbiguousResultException;
import dev.rangekv.client.CasResult;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.RangeKvException;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.server.move.NodeAdminClient;
import dev.rangekv.server.node.RaftTuning;
import dev.rangekv.testcluster.AckedWriters;
import dev.rangekv.testkit.Await;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's proposal buffer under pressure: 64 writer threads put into one range (so their writes are
 * grouped into shared Raft entries) and 8 more increment counters by compare-and-set, while the range
 * splits and one half moves to another node. Every acknowledged put reads back, and every counter
 * equals its acknowledged increments (plus at most its ambiguous ones): a write grouped with others,
 * retried after a leader change or a split, is applied once.
 */
class BatchedWritesIT {
  private static final Logger log = LoggerFactory.getLogger(BatchedWritesIT.class);
  private static final int COUNTERS = 4;

  @TempDir Path dir;

  static Key key(long n) {
    return Key.utf8(String.format("b/%08d", n));
  }

  static Key counter(int i) {
    return Key.utf8("b/counter/" + i);
  }

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void sixtyFourWriters_inOneRange_whileItSplitsAndMoves_loseNothing_andApplyOnce() throws Exception {
    writeWhileSplittingAndMoving(RaftTuning.forTests());
  }

  /**
   * The same with one Raft entry in flight per node across its ranges: after the split both halves
   * share their leader's slot (each waits its turn and gathers writes meanwhile), and the moved half's
   * leadership changes mid-entry; nothing may stall, be lost or apply twice.
   */
  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void withOneEntryInFlightPerNode_writersAcrossSplitHalves_loseNothing_andApplyOnce() throws Exception {
    writeWhileSplittingAndMoving(RaftTuning.forTests().withNodeEntriesInFlight(1));
  }

  private void writeWhileSplittingAndMoving(RaftTuning tuning) throws Exception {
    try (TestCluster tc = new TestCluster(dir, 4, tuning);
        RangeKvClient client = RangeKvClient.connect(tc.seeds(), ScanUnderChurnIT.options());
        NodeAdminClient mover = new NodeAdminClient(tc.seeds(), Duration.ofSeconds(60))) {
      TestCluster.awaitServing(client);
      AtomicLongArray ackedIncrements = new AtomicLongArray(COUNTERS);
      AtomicLongArray ambiguousIncrements = new AtomicLongArray(COUNTERS);
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> counters = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int c = t % COUNTERS;
        Thread th = new Thread(() -> increment(client, c, stop, ackedIncrements, ambiguousIncrements), "counter-" + t);
        th.setDaemon(true);
        th.start();
        counters.add(th);
      }
      AckedWriters writers = ClientWriters.start(client, 64, BatchedWritesIT::key, 100, Long.MAX_VALUE);
      try {
        awaitAcked(writers, 2_000);
        tc.split(key(writers.ackedCount() / 2)); // inside the written keys: both halves take writes
        awaitAcked(writers, writers.ackedCount() + 2_000);
        RangeDescriptor d = tc.ranges().lookup(key(writers.ackedCount()));
        String to = spareOf(tc, d.replicas());
        mover.move(d.rangeId(), d.replicas().get(0), tc.cluster.config(tc.cluster.indexOf(to)).clientAddress(), 0);
        awaitAcked(writers, writers.ackedCount() + 2_000);
      } finally {
        writers.close();
        stop.set(true);
        for (Thread th : counters) {
          th.join();
        }
      }
      log.info("batched writes acked={} failures={}", writers.ackedCount(), writers.failures());
      writers.assertNoAckedWriteLost(client::batchGet);
      for (int c = 0; c < COUNTERS; c++) {
        long value = client.get(counter(c)).map(v -> ByteBuffer.wrap(v).getLong()).orElse(0L);
        assertThat(value).as("counter %d: acked %d ambiguous %d", c, ackedIncrements.get(c), ambiguousIncrements.get(c))
            .isBetween(ackedIncrements.get(c), ackedIncrements.get(c) + ambiguousIncrements.get(c));
        assertThat(ackedIncrements.get(c)).as("counter %d moved", c).isPositive();
      }
    }
  }

  private static void awaitAcked(AckedWriters writers, long count) {
    Await.until(Duration.ofSeconds(90), "acked " + count + " writes", () -> writers.ackedCount() >= count);
  }

  private static String spareOf(TestCluster tc, List<String> replicas) {
    for (int i = 0; i < tc.cluster.size(); i++) {
      String id = tc.cluster.config(i).nodeId();
      if (!replicas.contains(id)) {
        return id;
      }
    }
    throw new IllegalStateException("no node outside " + replicas);
  }

  private static void increment(RangeKvClient client, int c, AtomicBoolean stop, AtomicLongArray acked,
      AtomicLongArray ambiguous) {
    while (!stop.get()) {
      try {
        Optional<byte[]> current = client.get(counter(c));
        long value = current.map(v -> ByteBuffer.wrap(v).getLong()).orElse(0L);
        CasResult r = client.compareAndSet(counter(c), current, Optional.of(ByteBuffer.allocate(8).putLong(value + 1).array()));
        if (r.succeeded()) {
          acked.incrementAndGet(c);
        }
      } catch (AmbiguousResultException e) {
        ambiguous.incrementAndGet(c);
      } catch (RangeKvException e) {
        log.debug("increment failed definitely counter={} error={}", c, e.getMessage());
      }
    }
  }
}
