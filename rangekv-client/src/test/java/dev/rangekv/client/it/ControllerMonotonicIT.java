package dev.rangekv.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.client.RangeKvClient;
import dev.rangekv.core.key.KeyCodec;
import dev.rangekv.proto.EventProto;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import dev.rangekv.testcluster.AckedWriters;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Controller integration test (in-JVM cluster, small thresholds): see {@link ControllerClusters}. */
class ControllerMonotonicIT {
  @TempDir Path dir;

  @Test
  @Timeout(600)
  @SuppressWarnings("try") // the writers only load the cluster while the test awaits the alert; close stops them
  void monotonicInsertsRaiseTheMonotonicKeyAlert() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(3, dir, RaftTuning.forTests(), ControllerClusters.config());
        MetaProbe meta = new MetaProbe(cluster);
        RangeKvClient client = ControllerClusters.client(cluster)) {
      long t0 = 1_700_000_000_000L;
      try (AckedWriters writers = ClientWriters.start(client, 8,
          n -> KeyCodec.tuple().addLong(t0 + n).addString("order").build(), 2_000, Long.MAX_VALUE)) {
        meta.awaitOrDump("the monotonic-key alert", Duration.ofMinutes(3),
            () -> !meta.events("alert-monotonic").isEmpty());
      }
      EventProto alert = meta.events("alert-monotonic").get(0);
      assertThat(alert.getDetail() + " " + alert.getReason()).containsIgnoringCase("bucket");
    }
  }
}
