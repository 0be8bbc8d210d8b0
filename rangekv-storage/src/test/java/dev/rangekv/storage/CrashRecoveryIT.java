package dev.rangekv.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.testkit.Seed;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A child JVM ({@link CrashWriter}) writes batches of data plus applied index and is killed with SIGKILL
 * at a random moment; reopening must show no batch half applied and the applied index equal to the last
 * batch whose data is present. Rounds alternate fsync on and off (the WAL is always on), each continuing
 * the same store from where the last one stopped.
 */
class CrashRecoveryIT {
  @TempDir Path dir;

  @Test
  @Timeout(180)
  void killedWriter_leavesDataAndAppliedIndexConsistent() throws Exception {
    long seed = Seed.of("CrashRecoveryIT");
    SplittableRandom random = new SplittableRandom(seed);
    Path store = dir.resolve("store");
    long lastSeen = 0;
    for (int round = 0; round < 4; round++) {
      boolean sync = round % 2 == 0;
      long acknowledged = runAndKill(store, sync, random, round);
      assertThat(acknowledged).as("round %d made progress", round).isGreaterThan(lastSeen);
      lastSeen = verify(store, acknowledged, round);
      System.out.println("crash round=" + round + " sync=" + sync + " acknowledged=" + acknowledged
          + " recovered=" + lastSeen);
    }
  }

  /** Runs the writer until it reported a random number of progress lines, then kills it; returns the last index it reported. */
  private long runAndKill(Path store, boolean sync, SplittableRandom random, int round)
      throws IOException, InterruptedException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Path stderr = dir.resolve("writer-" + round + ".err");
    Process p = new ProcessBuilder(java, "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-cp", System.getProperty("java.class.path"), CrashWriter.class.getName(), store.toString(),
        Boolean.toString(sync))
        .redirectError(stderr.toFile())
        .start();
    long reported = 0;
    int wanted = random.nextInt(2, 40);
    int seen = 0;
    try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while (seen < wanted && (line = out.readLine()) != null) {
        if (line.startsWith("applied ")) {
          reported = Long.parseLong(line.substring(8));
          seen++;
        }
      }
      // A random extra moment, so the kill lands anywhere inside a batch or a flush.
      LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(random.nextInt(0, 20_000)));
      p.destroyForcibly();
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      p.destroyForcibly();
    }
    assertThat(seen).as("writer progress; its stderr: %s", Files.readString(stderr)).isEqualTo(wanted);
    return reported;
  }

  /** Checks the recovered store; returns its applied index. */
  private long verify(Path store, long acknowledged, int round) {
    try (NodeStore s = NodeStore.open(store, StoreOptions.defaults())) {
      long applied = s.rangeState(CrashWriter.RANGE_ID).orElseThrow().appliedIndex();
      // A process crash keeps what reached the OS, fsync or not: nothing acknowledged is lost.
      assertThat(applied).as("round %d applied index", round).isGreaterThanOrEqualTo(acknowledged);
      assertThat(s.get(Key.utf8("last")).map(v -> new String(v, StandardCharsets.UTF_8)))
          .as("round %d last", round).contains(Long.toString(applied));
      List<Key> expected = new ArrayList<>();
      for (long i = Math.max(1, applied - CrashWriter.WINDOW + 1); i <= applied; i++) {
        expected.add(CrashWriter.dataKey(i));
      }
      List<KeyValue> present = s.scan(Key.utf8("k"), Key.utf8("k").prefixEnd(), Integer.MAX_VALUE, false);
      assertThat(present).extracting(KeyValue::key).as("round %d data keys", round)
          .containsExactlyElementsOf(expected);
      for (KeyValue kv : present) {
        long i = Long.parseLong(kv.key().toUtf8().substring(1));
        assertThat(kv.value()).isEqualTo(CrashWriter.value(i));
      }
      return applied;
    }
  }
}
