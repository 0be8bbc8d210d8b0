package dev.rangekv.server.node;

import dev.rangekv.core.key.Key;
import dev.rangekv.testcluster.ClusterRouter;
import dev.rangekv.testkit.Seed;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Splits while 4 writers write continuously: nothing acknowledged is lost or lands in the wrong range. */
class SplitUnderLoadIT {
  private static final Logger log = LoggerFactory.getLogger(SplitUnderLoadIT.class);

  @TempDir Path dir;

  @Test
  @Timeout(180)
  void oneSplit_whileFourWritersWrite_losesNoAcknowledgedWrite() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(3, dir, RaftTuning.forTests());
        ClusterRouter router = ClusterSteps.router(cluster)) {
      router.refresh();
      router.put("warmup", "1");
      Writers writers = new Writers(cluster, 4);
      try (writers) {
        writers.start();
        writers.awaitAcks(200, Duration.ofSeconds(60));
        router.split(Key.utf8(Writers.key(Writers.KEY_SPACE / 2)));
        writers.awaitAcks(200, Duration.ofSeconds(60));
      }
      writers.verify(router, 2);
    }
  }

  @Test
  @Timeout(300)
  void repeatedSplits_to50Ranges_whileWriting_loseNothing() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(3, dir, RaftTuning.forTests());
        ClusterRouter router = ClusterSteps.router(cluster)) {
      router.refresh();
      router.put("warmup", "1");
      List<Key> splitKeys = new ArrayList<>();
      for (int i = 1; i < 50; i++) {
        splitKeys.add(Key.utf8(Writers.key(i * Writers.KEY_SPACE / 50)));
      }
      long seed = Seed.of("SplitUnderLoadIT.repeatedSplits"); // split order (stream 0) and the writers' keys
      Collections.shuffle(splitKeys, new Random(Seed.stream(seed, 0).nextLong()));
      Writers writers = new Writers(cluster, 4, seed);
      try (writers) {
        writers.start();
        writers.awaitAcks(100, Duration.ofSeconds(60));
        long t0 = System.nanoTime();
        for (Key k : splitKeys) {
          router.split(k);
        }
        log.info("49 splits took ms={} acked={} writerRetries={}", (System.nanoTime() - t0) / 1_000_000,
            writers.acks(), writers.retries());
        writers.awaitAcks(200, Duration.ofSeconds(60));
      }
      writers.verify(router, 50);
    }
  }
}
