package dev.rangekv.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.client.RangeKvClient;
import dev.rangekv.core.key.Key;
import dev.rangekv.proto.EventProto;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import dev.rangekv.testcluster.AckedWriters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Controller integration test (in-JVM cluster, small thresholds): see {@link ControllerClusters}. */
class ControllerLoadSplitIT {
  @TempDir Path dir;

  @Test
  @Timeout(600)
  void aReadHotRangeIsSplitByLoadAndOneHalfMoves() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(4, dir, RaftTuning.forTests(), ControllerClusters.config());
        MetaProbe meta = new MetaProbe(cluster);
        RangeKvClient client = ControllerClusters.client(cluster)) {
      AckedWriters writers = ClientWriters.start(client, 4, n -> Key.utf8(String.format("item%05d", n)), 100, 2_000);
      writers.join();
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong reads = new AtomicLong();
      List<Thread> readers = new java.util.ArrayList<>();
      for (int t = 0; t < 8; t++) {
        Random random = new Random(t);
        Thread th = new Thread(() -> {
          while (!stop.get()) {
            client.get(Key.utf8(String.format("item%05d", random.nextInt(2_000))));
            reads.incrementAndGet();
          }
        }, "hot-reader-" + t);
        th.setDaemon(true);
        readers.add(th);
        th.start();
      }
      try {
        meta.awaitOrDump("a load split", Duration.ofMinutes(3), () -> meta.events("split").stream()
            .anyMatch(e -> e.getReason().contains("load")));
        EventProto split = meta.events("split").stream().filter(e -> e.getReason().contains("load")).findFirst().orElseThrow();
        Set<Long> halves = Set.copyOf(split.getRangeIdsList());
        meta.awaitOrDump("one half of the load split moves", Duration.ofMinutes(3), () -> meta.events("move").stream()
            .filter(e -> e.getSeq() > split.getSeq())
            .anyMatch(e -> e.getRangeIdsList().stream().anyMatch(halves::contains)));
      } finally {
        stop.set(true);
        for (Thread th : readers) {
          th.join();
        }
      }
      assertThat(reads.get()).isPositive();
      writers.assertNoAckedWriteLost(client::batchGet);
    }
  }
}
