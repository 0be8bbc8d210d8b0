package dev.rangekv.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.client.RangeKvClient;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class SmokeIntegrationTest {
  @TempDir Path dir;

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void putGetScan_acrossASplit_work() throws Exception {
    try (TestCluster tc = new TestCluster(dir); RangeKvClient client = tc.client()) {
      for (int i = 0; i < 20; i++) {
        client.put(Key.utf8(String.format("k%02d", i)), ("v" + i).getBytes());
      }
      assertThat(client.get(Key.utf8("k05")).map(String::new)).contains("v5");
      tc.split(Key.utf8("k10"));
      client.put(Key.utf8("k15"), "x".getBytes());
      assertThat(client.get(Key.utf8("k15")).map(String::new)).contains("x");
      List<String> keys = new ArrayList<>();
      client.scan(Key.EMPTY, RangeEnd.INFINITY).forEachRemaining(kv -> keys.add(kv.key().toUtf8()));
      assertThat(keys).hasSize(20).isSorted();
      assertThat(client.get(Key.utf8("nope"))).isEqualTo(Optional.empty());
    }
  }
}
