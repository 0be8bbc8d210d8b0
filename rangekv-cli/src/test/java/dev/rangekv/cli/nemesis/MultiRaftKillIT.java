package dev.rangekv.cli.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.cli.CliRun;
import dev.rangekv.client.AmbiguousResultException;
import dev.rangekv.client.ClientOptions;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.RangeKvException;
import dev.rangekv.core.key.Key;
import dev.rangekv.testkit.Await;
import dev.rangekv.testkit.Seed;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three {@code rangekv start --engine multiraft} processes under writers, two ranges; twice a node is
 * killed with SIGKILL (its stripes' unsynced cycle batches die with it) and restarted on its data
 * directory while the writers go on. At the end every acknowledged write reads back with its value, on
 * the multi-raft engine's crash path: restart from the Raft log database and the stores' applied indexes.
 * Seeded (which node dies when); {@code -Drangekv.seed=N} replays the choices.
 */
class MultiRaftKillIT {
  private static final Duration STEP = Duration.ofSeconds(120);
  private static final int WRITERS = 4;

  @TempDir Path dir;

  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES)
  void killedAndRestartedNodes_loseNoAcknowledgedWrite() throws Exception {
    long seed = Seed.of("multiraft-kill");
    SplittableRandom random = new SplittableRandom(seed);
    Path logs = Path.of("target", "multiraft-kill-logs", "seed-" + seed);
    try (NodeProcesses nodes = new NodeProcesses(dir, logs, 3, List.of("controller.tick=1000"),
        List.of("--engine", "multiraft"))) {
      List<String> ids = nodes.ids();
      nodes.start(ids.get(0), List.of());
      nodes.awaitLog(ids.get(0), "bootstrapped a new cluster", STEP);
      String first = nodes.addresses().get(0);
      CliRun.ok(CliRun.of("put", "seed", "1", "--cluster", first));
      for (String id : ids.subList(1, ids.size())) {
        nodes.start(id, List.of(first));
      }
      for (String id : ids.subList(1, ids.size())) {
        nodes.awaitLog(id, "joined the cluster", STEP);
      }
      for (String id : ids) {
        nodes.awaitLog(id, "multi-raft engine started", STEP);
      }
      CliRun.ok(CliRun.of("split", "--at", "w/2", "--cluster", nodes.cluster()));
      CliRun.await(STEP, r -> r.exit() == 0 && Nemesis.parseRanges(r.out()).size() == 2
          && Nemesis.parseRanges(r.out()).values().stream().allMatch(reps -> reps.size() == 3),
          "two ranges on 3 nodes", "ranges", "--json", "--cluster", nodes.cluster());

      Map<String, String> acked = new ConcurrentHashMap<>();
      AtomicLong ambiguous = new AtomicLong();
      List<Throwable> unexpected = new java.util.concurrent.CopyOnWriteArrayList<>();
      AtomicBoolean stop = new AtomicBoolean();
      ClientOptions options = ClientOptions.defaults().withTimeout(Duration.ofSeconds(10));
      try (RangeKvClient client = RangeKvClient.connect(nodes.addresses(), options)) {
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
          int writer = w;
          Thread t = new Thread(() -> {
            for (long n = 0; !stop.get(); n++) {
              String key = "w/" + writer + "/" + String.format("%08d", n);
              String value = "v" + n;
              try {
                client.put(Key.utf8(key), value.getBytes(StandardCharsets.UTF_8));
                acked.put(key, value);
              } catch (AmbiguousResultException e) {
                ambiguous.incrementAndGet();
              } catch (RangeKvException e) {
                // refused (definitely not applied): another key next
              } catch (RuntimeException e) {
                unexpected.add(e);
                return;
              }
            }
          }, "kill-it-writer-" + w);
          t.setDaemon(true);
          t.start();
          writers.add(t);
        }
        String previous = "";
        for (int round = 0; round < 2; round++) {
          awaitMoreAcks(acked, 200);
          String victim;
          do {
            victim = ids.get(random.nextInt(ids.size())); // two different nodes: at least one led a range
          } while (victim.equals(previous));
          previous = victim;
          System.out.println("multiraft-kill: seed=" + seed + " round=" + round + " kill " + victim
              + " acked=" + acked.size());
          nodes.kill(victim);
          awaitMoreAcks(acked, 100); // the other two still form every range's majority
          nodes.restart(victim, STEP);
        }
        awaitMoreAcks(acked, 200);
        stop.set(true);
        for (Thread t : writers) {
          t.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertThat(unexpected).as("unexpected writer exceptions").isEmpty();
        RangeKvClient patient = client.withTimeout(Duration.ofSeconds(30));
        for (Map.Entry<String, String> e : acked.entrySet()) {
          Optional<byte[]> got = patient.get(Key.utf8(e.getKey()));
          assertThat(got.map(v -> new String(v, StandardCharsets.UTF_8))).as("acknowledged %s", e.getKey())
              .contains(e.getValue());
        }
        System.out.println("multiraft-kill: seed=" + seed + " acked=" + acked.size() + " ambiguous=" + ambiguous.get());
      }
    }
  }

  private static void awaitMoreAcks(Map<String, String> acked, int more) {
    int target = acked.size() + more;
    // acknowledgements have no event to await: polled
    Await.until(STEP, Duration.ofMillis(50), target + " acknowledged writes", () -> acked.size() >= target);
  }
}
