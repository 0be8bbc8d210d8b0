package dev.rangekv.cli.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.cli.CliRun;
import dev.rangekv.cli.RangeKvCommand;
import dev.rangekv.cli.cluster.KvSession;
import dev.rangekv.cli.cluster.MetaCalls;
import dev.rangekv.cli.nemesis.NodeProcesses;
import dev.rangekv.client.KeyValue;
import dev.rangekv.core.backup.KeySpan;
import dev.rangekv.core.key.Key;
import dev.rangekv.proto.GetMapRequest;
import dev.rangekv.proto.GetMapResponse;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.testkit.Await;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILL during backup and restore on one cluster of 3 node processes (ranges k/NN/ of random values,
 * written once): of a {@code backup create} process after its first range (the backup verifies as
 * incomplete, and the next {@code backup create} to the same place resumes it, keeping what was
 * written); and of a node process, once while a backup streams a range from it and once while a
 * restore stages and ingests ranges (each range restored whole or not at all, and every key restored
 * once the node is back). The tests run in order.
 */
@Timeout(240)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BackupKillProcessIT {
  private static final Duration STEP = Duration.ofSeconds(90);
  /** Ranges under k/, and keys of 16 KiB random values per range. */
  private static final int RANGES = 12;
  private static final int KEYS_PER_RANGE = 8;

  @TempDir static Path dir;
  static NodeProcesses nodes;
  /** What was written under k/, keyed by what follows k/. */
  static Map<String, byte[]> written;

  @BeforeAll
  static void start() throws Exception {
    nodes = new NodeProcesses(dir.resolve("nodes"), Path.of("target", "backup-kill-logs"), 3,
        List.of("controller.tick=1000"), List.of());
    startThreeNodes(nodes);
    written = writeRanges(nodes);
  }

  @AfterAll
  static void stop() {
    if (nodes != null) {
      nodes.close();
    }
  }

  @Test
  @Order(1)
  void aKilledBackup_isIncomplete_andCreateResumesIt() throws Exception {
    String uri = dir.resolve("cli-kill-backup").toUri().toString();
    // 128 KB/s: a range takes about a second, so the kill lands while most ranges are left
    CliProcess backup = CliProcess.start(dir.resolve("cli-kill-backup.log"), List.of("backup", "create", "--to", uri,
        "--span", "k/", "--rate", "128KB", "--cluster", nodes.cluster()));
    try {
      backup.awaitOutput(out -> out.contains("[1/" + RANGES + "]"), STEP, "the first range written");
    } finally {
      backup.close(); // SIGKILL
    }
    assertThat(backup.output()).doesNotContain("-- backup ");
    CliRun verify = CliRun.of("backup", "verify", uri);
    assertThat(verify.exit()).isEqualTo(1);
    assertThat(verify.out()).contains("incomplete");

    CliRun resume = CliRun.ok(CliRun.of("backup", "create", "--to", uri, "--span", "k/", "--cluster", nodes.cluster()));
    assertThat(resume.out()).containsPattern("resuming the backup at .*: ([1-9]|1[01]) of its ranges already written")
        .contains("-- backup ").doesNotContain("[" + RANGES + "/" + RANGES + "]");
    assertThat(CliRun.ok(CliRun.of("backup", "verify", uri)).out()).startsWith("ok: " + RANGES + " files");
  }

  @Test
  @Order(2)
  void aNodeKilledMidBackupAndMidRestore_leavesEveryRangeWholeOrAbsent_andTheRestoreCompletesWhenItIsBack()
      throws Exception {
    Path data = dir.resolve("nodes");
    String uri = dir.resolve("node-kill-backup").toUri().toString();

    // 1 MB/s: each range (~130 KB) streams for about 0.13 s from one node's export folder
    InJvm backup = InJvm.start("backup", "create", "--to", uri, "--span", "k/", "--rate", "1MB", "--timeout", "30s",
        "--cluster", nodes.cluster());
    String streaming = awaitNode(nodes, data, backup, "transfers", n -> n.startsWith("out-"), "a range streaming");
    nodes.kill(streaming); // the node whose export the backup is reading right now
    CliRun midway = CliRun.of("backup", "verify", uri);
    assertThat(midway.exit()).as(midway.toString()).isEqualTo(1);
    assertThat(midway.out() + midway.err()).contains("incomplete");
    CliRun first = backup.await(STEP);
    System.out.println("backup-kill: killed " + streaming + " mid-export; backup " + first);
    if (first.exit() != 0) { // gave up before the other replicas took over: resumed
      assertThat(CliRun.ok(CliRun.of("backup", "create", "--to", uri, "--span", "k/", "--timeout", "30s",
          "--cluster", nodes.cluster())).out()).contains("resuming the backup at");
    }
    assertThat(CliRun.ok(CliRun.of("backup", "verify", uri)).out()).startsWith("ok: " + RANGES + " files");
    nodes.restart(streaming, STEP);

    InJvm restore = InJvm.start("restore", "--from", uri, "--span", "k/", "--into-prefix", "r/", "--timeout", "30s",
        "--cluster", nodes.cluster());
    // a range restored, and another staged on a node, its ingest entry proposed or about to be
    String staging = awaitNode(nodes, data, restore, "restores", n -> n.matches("r[0-9]+"), "a range staged");
    nodes.kill(staging);
    String atKill = restore.out();
    CliRun interrupted = restore.await(STEP);
    System.out.println("backup-kill: killed " + staging + " mid-restore; restore " + interrupted);
    assertThat(atKill).as("the kill landed before the restore ended").doesNotContain("-- restored");

    Map<String, byte[]> visible = scan(nodes, "r/");
    java.util.Set<String> whole = new java.util.TreeSet<>();
    for (int r = 0; r < RANGES; r++) {
      String range = String.format("%02d/", r);
      long n = visible.keySet().stream().filter(k -> k.startsWith(range)).count();
      assertThat(n).as("keys of range %s visible after the kill (all or none)", range).isIn(0L, (long) KEYS_PER_RANGE);
      if (n > 0) {
        whole.add(range);
      }
    }
    assertSameValues(visible, written, whole);
    System.out.println("backup-kill: ranges whole after the kill " + whole);

    nodes.restart(staging, STEP);
    assertSameValues(scan(nodes, "r/"), written, whole);
    if (interrupted.exit() != 0) { // the rest, over what the first run restored
      CliRun.ok(CliRun.of("restore", "--from", uri, "--span", "k/", "--into-prefix", "r/", "--overwrite",
          "--timeout", "30s", "--cluster", nodes.cluster()));
    }
    Map<String, byte[]> all = scan(nodes, "r/");
    assertThat(all.keySet()).isEqualTo(written.keySet());
    assertSameValues(all, written, all.keySet().stream().map(k -> k.substring(0, 3)).collect(
        java.util.stream.Collectors.toSet()));
  }

  /** A CLI command running on a thread of this JVM, its output readable while it runs. */
  private record InJvm(CompletableFuture<Integer> exit, StringWriter stdout, StringWriter stderr) {
    static InJvm start(String... args) {
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(
          () -> RangeKvCommand.run(args, new PrintWriter(out, true), new PrintWriter(err, true)));
      return new InJvm(exit, out, err);
    }

    String out() {
      return stdout.toString();
    }

    CliRun await(Duration timeout) throws Exception {
      int code = exit.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return new CliRun(code, stdout.toString(), stderr.toString());
    }
  }

  /**
   * The node that, once {@code run} reported its first range, has an entry named as {@code name} accepts
   * under {@code folder} of its data directory (a backup's export, a restore's complete staging): polled
   * often, since each lasts a fraction of a second.
   */
  private static String awaitNode(NodeProcesses nodes, Path data, InJvm run, String folder,
      java.util.function.Predicate<String> name, String what) {
    return Await.result(STEP, Duration.ofMillis(10), what, () -> {
      if (run.exit().isDone()) {
        throw new AssertionError(what + ": the command ended first; output:\n" + run.out() + run.stderr());
      }
      if (!run.out().contains("[1/")) {
        return "";
      }
      for (String id : nodes.ids()) {
        try (java.util.stream.Stream<Path> s = Files.walk(data.resolve(id).resolve(folder), 2)) {
          if (s.anyMatch(p -> name.test(p.getFileName().toString()))) {
            return id;
          }
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
          // the folder is missing, or an entry went while listed: not yet
        }
      }
      return "";
    }, id -> !id.isEmpty());
  }

  /** n1 bootstraps, n2 and n3 join; returns once every range has 3 replicas. */
  private static void startThreeNodes(NodeProcesses nodes) throws Exception {
    List<String> ids = nodes.ids();
    nodes.start(ids.get(0), List.of());
    nodes.awaitLog(ids.get(0), "bootstrapped a new cluster", STEP);
    String first = nodes.addresses().get(0);
    for (String id : ids.subList(1, ids.size())) {
      nodes.start(id, List.of(first));
    }
    for (String id : ids.subList(1, ids.size())) {
      nodes.awaitLog(id, "joined the cluster", STEP);
    }
    StringBuilder at = new StringBuilder("k/");
    for (int r = 1; r < RANGES; r++) {
      at.append(String.format(",k/%02d/", r));
    }
    CliRun.ok(CliRun.of("presplit", "--at", at + ",k0", "--cluster", nodes.cluster()));
    try (MetaCalls meta = new MetaCalls(nodes.addresses(), Duration.ofSeconds(30))) {
      Await.until(STEP, Duration.ofMillis(500), "every range on 3 replicas", () -> {
        GetMapResponse map = meta.read(s -> s.getMap(GetMapRequest.newBuilder().build()));
        return map.getRangesCount() >= RANGES + 2
            && map.getRangesList().stream().allMatch(d -> d.getReplicasCount() == 3);
      });
    }
  }

  /** {@link #KEYS_PER_RANGE} keys of 16 KiB random values in each range k/NN/, keyed by NN/i. */
  private static Map<String, byte[]> writeRanges(NodeProcesses nodes) {
    Map<String, byte[]> written = new TreeMap<>();
    try (KvSession kv = KvSession.open(nodes.addresses(), Duration.ofSeconds(30))) {
      kv.run(c -> {
        SplittableRandom random = new SplittableRandom(33);
        for (int r = 0; r < RANGES; r++) {
          for (int i = 0; i < KEYS_PER_RANGE; i++) {
            byte[] v = new byte[16 << 10];
            random.nextBytes(v);
            String key = String.format("%02d/%03d", r, i);
            c.put(Key.utf8("k/" + key), v);
            written.put(key, v);
          }
        }
        return null;
      });
    }
    return written;
  }

  /** The node leading the range that starts at {@code start}, as heartbeats report it (n2 when unknown). */
  private static String leaderOf(NodeProcesses nodes, String start) {
    try (MetaCalls meta = new MetaCalls(nodes.addresses(), Duration.ofSeconds(30))) {
      GetMapResponse map = meta.read(s -> s.getMap(GetMapRequest.newBuilder().build()));
      RangeDescriptorProto d = map.getRangesList().stream()
          .filter(r -> r.getStart().toStringUtf8().equals(start)).findFirst().orElseThrow();
      return map.getLeaderNodeIdsMap().getOrDefault(d.getRangeId(), "n2");
    }
  }

  /** Every key under {@code prefix}, keyed by what follows the prefix. */
  private static Map<String, byte[]> scan(NodeProcesses nodes, String prefix) {
    try (KvSession kv = KvSession.open(nodes.addresses(), Duration.ofSeconds(30))) {
      return kv.run(c -> {
        Map<String, byte[]> out = new TreeMap<>();
        KeySpan s = KeySpan.prefix(Key.utf8(prefix));
        c.scan(s.start(), s.end()).forEachRemaining((KeyValue e) -> out.put(e.key().toUtf8().substring(prefix.length()),
            e.value()));
        return out;
      });
    }
  }

  /** The keys of {@code ranges} (NN/ prefixes) in {@code got} hold what was written under them. */
  private static void assertSameValues(Map<String, byte[]> got, Map<String, byte[]> written,
      java.util.Set<String> ranges) {
    for (Map.Entry<String, byte[]> e : written.entrySet()) {
      if (ranges.contains(e.getKey().substring(0, 3))) {
        assertThat(got.get(e.getKey())).as("restored %s", e.getKey()).isEqualTo(e.getValue());
      }
    }
  }
}
