package dev.rangekv.client.it;

import dev.rangekv.client.RangeKvClient;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The base of test classes whose tests share one 3-node {@link TestCluster} and one client, started
 * before the first test and closed after the last. A fork runs its classes one after another, so the
 * statics belong to the class that runs.
 */
abstract class SharedClusterFixture {
  @TempDir static Path dir;
  static TestCluster tc;
  static RangeKvClient client;

  @BeforeAll
  static void start() throws Exception {
    tc = new TestCluster(dir);
    client = tc.client();
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
    if (tc != null) {
      tc.close();
    }
  }
}
