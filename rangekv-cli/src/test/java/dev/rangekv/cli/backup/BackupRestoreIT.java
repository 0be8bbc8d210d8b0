package dev.rangekv.cli.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.cli.CliRun;
import dev.rangekv.cli.cluster.MetaCalls;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.ReplicaProto;
import dev.rangekv.proto.backup.BackupServiceGrpc;
import dev.rangekv.proto.backup.IngestStagedRequest;
import dev.rangekv.proto.backup.StageHeader;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.replica.IngestCommand;
import dev.rangekv.server.raft.PeerChannels;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import dev.rangekv.cli.cluster.KvSession;
import dev.rangekv.client.KeyValue;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.core.backup.KeySpan;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.key.Key;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Backup and restore through the CLI against one 3-node in-JVM cluster with a meta range: the tests
 * run in order on the same data (users/ in three ranges, written once).
 */
@Timeout(300)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BackupRestoreIT {
  private static final int USERS = 300;
  @TempDir static Path dir;
  static LocalCluster cluster;
  static KvSession kv;

  @BeforeAll
  static void start() throws Exception {
    cluster = LocalCluster.start(3, dir.resolve("cluster"), RaftTuning.forTests(), ControllerConfig.builder().build());
    kv = KvSession.open(List.of(address()), Duration.ofSeconds(30));
    CliRun.ok(run("presplit", "--at", "users/100,users/200"));
    kv.run(c -> {
      for (int i = 0; i < USERS; i++) {
        c.put(Key.utf8(String.format("users/%03d", i)), ("name-" + i).getBytes(StandardCharsets.UTF_8));
      }
      c.put(Key.utf8("orders/1"), "o1".getBytes(StandardCharsets.UTF_8));
      return null;
    });
  }

  @AfterAll
  static void stop() {
    if (kv != null) {
      kv.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  static String address() {
    return cluster.config(0).clientAddress();
  }

  static CliRun run(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--cluster");
    all.add(address());
    return CliRun.of(all.toArray(String[]::new));
  }

  static CliRun local(String... args) {
    return CliRun.of(args);
  }

  static String uri(String name) {
    return dir.resolve("backups").resolve(name).toUri().toString();
  }

  static Map<String, String> scan(String prefix) {
    return kv.run((Function<RangeKvClient, Map<String, String>>) c -> {
      Map<String, String> out = new LinkedHashMap<>();
      KeySpan s = KeySpan.prefix(Key.utf8(prefix));
      c.scan(s.start(), s.end()).forEachRemaining((KeyValue e) -> out.put(e.key().toUtf8().substring(prefix.length()),
          e.valueUtf8()));
      return out;
    });
  }

  static List<Path> sstFiles(String backup) throws IOException {
    try (Stream<Path> s = Files.walk(dir.resolve("backups").resolve(backup))) {
      return s.filter(p -> p.toString().endsWith(".sst")).sorted().toList();
    }
  }

  static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : s.toList()) {
        Path t = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(t);
        } else {
          Files.copy(p, t);
        }
      }
    }
  }

  @Test
  @Order(1)
  void create_writesEveryRangeOfTheSpan_andVerifyReadsItBack() {
    CliRun create = CliRun.ok(run("backup", "create", "--to", uri("full"), "--span", "users/", "--rate", "50MB"));
    assertThat(create.out()).contains("[1/3] r").contains("[3/3] r").contains("-- backup ").contains("3 ranges");

    CliRun verify = CliRun.ok(local("backup", "verify", uri("full")));
    assertThat(verify.out()).startsWith("ok: 3 files");

    CliRun show = CliRun.ok(local("backup", "show", uri("full")));
    assertThat(show.out()).contains("span [users/, users0), finished").contains("[users/100, users/200)");
    CliRun list = CliRun.ok(local("backup", "list", dir.resolve("backups").toUri().toString()));
    assertThat(list.out()).contains("/full").contains("finished").contains("-- 1 backups");
  }

  @Test
  @Order(2)
  void restore_intoAnotherPrefix_writesTheSameKeysThere_andRefusesToWriteOverThem() {
    CliRun restore = CliRun.ok(run("restore", "--from", uri("full"), "--span", "users/", "--into-prefix", "copy/"));
    assertThat(restore.out()).contains("verified 3 files").contains("[3/3] r").contains("into [copy/, copy0)");
    Map<String, String> copy = scan("copy/");
    assertThat(copy).hasSize(USERS);
    assertThat(copy.equals(scan("users/"))).as("copy/ holds what users/ holds").isTrue();
    assertThat(copy.get("042")).isEqualTo("name-42");

    CliRun again = run("restore", "--from", uri("full"), "--span", "users/", "--into-prefix", "copy/");
    assertThat(again.exit()).as(again.toString()).isEqualTo(1);
    assertThat(again.err()).contains("the cluster holds data in [copy/").contains("--overwrite");
  }

  @Test
  @Order(3)
  void restore_afterTheKeysWereDeleted_bringsThemBack_andOverwriteReplaces() {
    kv.run(c -> {
      KeySpan users = KeySpan.prefix(Key.utf8("users/"));
      c.deleteRange(users.start(), users.end());
      return null;
    });
    assertThat(scan("users/")).isEmpty();
    CliRun.ok(run("restore", "--from", uri("full")));
    Map<String, String> back = scan("users/");
    assertThat(back).hasSize(USERS);
    assertThat(back.get("299")).isEqualTo("name-299");

    kv.run(c -> {
      c.put(Key.utf8("copy/000"), "changed".getBytes(StandardCharsets.UTF_8));
      c.put(Key.utf8("copy/zzz"), "extra".getBytes(StandardCharsets.UTF_8));
      return null;
    });
    CliRun.ok(run("restore", "--from", uri("full"), "--span", "users/", "--into-prefix", "copy/", "--overwrite"));
    assertThat(scan("copy/").equals(scan("users/"))).as("copy/ holds what users/ holds").isTrue();
  }

  @Test
  @Order(4)
  void aBackup_isNeverRestoredOverKeysItDoesNotHold() {
    CliRun r = run("restore", "--from", uri("full"), "--span", "orders/");
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("the backup covers [users/, users0), not all of [orders/, orders0)")
        .contains("nothing restored");
    assertThat(scan("orders/")).containsEntry("1", "o1");
  }

  @Test
  @Order(5)
  void aCorruptOrTruncatedFile_failsVerifyAndRestore_namingTheFile() throws IOException {
    Path backups = dir.resolve("backups");
    copyTree(backups.resolve("full"), backups.resolve("corrupt"));
    Path victim = sstFiles("corrupt").get(1);
    byte[] bytes = Files.readAllBytes(victim);
    bytes[bytes.length / 2] ^= 0x5a;
    Files.write(victim, bytes);
    String name = backups.resolve("corrupt").relativize(victim).toString();

    CliRun verify = local("backup", "verify", uri("corrupt"));
    assertThat(verify.exit()).isEqualTo(1);
    assertThat(verify.err()).contains("file " + name + " is corrupt");
    CliRun restore = run("restore", "--from", uri("corrupt"), "--span", "users/", "--into-prefix", "bad/");
    assertThat(restore.exit()).isEqualTo(1);
    assertThat(restore.err()).contains("nothing restored").contains(name);
    assertThat(scan("bad/")).isEmpty();

    Files.write(victim, java.util.Arrays.copyOf(bytes, bytes.length / 3));
    CliRun truncated = local("backup", "verify", uri("corrupt"));
    assertThat(truncated.err()).contains("file " + name + " is truncated");
  }

  @Test
  @Order(6)
  void anInterruptedBackup_verifiesAsIncomplete_andCreateResumesIt() throws IOException {
    Path backups = dir.resolve("backups");
    copyTree(backups.resolve("full"), backups.resolve("resumed"));
    // what a run killed after its first range leaves: an unfinished manifest listing that range
    Destination dest = Destinations.open(uri("resumed"), S3Settings.DEFAULTS);
    var m = Manifests.require(dest);
    Manifests.write(dest, m.toBuilder().clearRanges().addRanges(m.getRanges(0)).setFinishedAtMillis(0).build());

    CliRun verify = local("backup", "verify", uri("resumed"));
    assertThat(verify.exit()).isEqualTo(1);
    assertThat(verify.err()).contains("incomplete");

    CliRun resume = CliRun.ok(run("backup", "create", "--to", uri("resumed"), "--span", "users/"));
    assertThat(resume.out()).contains("resuming the backup at").contains("1 of its ranges already written")
        .contains("[2/2] r").doesNotContain("[3/");
    CliRun.ok(local("backup", "verify", uri("resumed")));

    CliRun finished = run("backup", "create", "--to", uri("resumed"), "--span", "users/");
    assertThat(finished.exit()).isEqualTo(1);
    assertThat(finished.err()).contains("a finished backup is already at");
  }

  @Test
  @Order(7)
  void anIncrementalBackup_keepsTheBaseFilesOfUnchangedRanges_andRestoresTheLatestData() {
    CliRun.ok(run("backup", "create", "--to", uri("base"), "--span", "users/"));
    kv.run(c -> {
      c.put(Key.utf8("users/250"), "renamed".getBytes(StandardCharsets.UTF_8));
      return null;
    });
    CliRun inc = CliRun.ok(run("backup", "create", "--to", uri("inc"), "--span", "users/",
        "--incremental-from", uri("base")));
    assertThat(inc.out()).contains("unchanged since the base");
    CliRun.ok(local("backup", "verify", uri("inc")));
    CliRun show = CliRun.ok(local("backup", "show", uri("inc")));
    assertThat(show.out()).contains("incremental from " + uri("base"));

    CliRun.ok(run("restore", "--from", uri("inc"), "--span", "users/", "--into-prefix", "latest/"));
    Map<String, String> latest = scan("latest/");
    assertThat(latest.get("250")).isEqualTo("renamed");
    assertThat(latest.equals(scan("users/"))).as("latest/ holds what users/ holds").isTrue();
  }
  @Test
  @Order(8)
  void aNodeStoppedDuringABackup_theBackupCompletesFromTheOtherReplicas_orIsIncompleteAndResumes() throws Exception {
    String uri = uri("nodeloss");
    // 1 KB/s: each range's file (a few KB) takes seconds, so the stop lands while ranges are left to export
    CompletableFuture<CliRun> backup = CompletableFuture.supplyAsync(
        () -> run("backup", "create", "--to", uri, "--span", "users/", "--rate", "1KB", "--timeout", "30s"));
    Destination dest = Destinations.open(uri, S3Settings.DEFAULTS);
    Awaitility.await().atMost(Duration.ofSeconds(60))
        .until(() -> Manifests.read(dest).map(m -> m.getRangesCount() >= 1).orElse(false));
    int victim = leaderOfLastUsersRange();
    cluster.stop(victim);
    try {
      CliRun first = backup.get(150, TimeUnit.SECONDS);
      if (first.exit() != 0) { // left incomplete: verify says so, and create resumes it
        assertThat(local("backup", "verify", uri).out()).contains("incomplete");
        assertThat(CliRun.ok(run("backup", "create", "--to", uri, "--span", "users/", "--timeout", "30s")).out())
            .contains("resuming the backup at");
      }
      assertThat(CliRun.ok(local("backup", "verify", uri)).out()).startsWith("ok: ");
    } finally {
      cluster.restart(victim);
    }
    CliRun.ok(run("restore", "--from", uri, "--span", "users/", "--into-prefix", "afterloss/", "--timeout", "30s"));
    assertThat(scan("afterloss/").equals(scan("users/"))).as("afterloss/ holds what users/ holds").isTrue();
  }

  /** The node leading users/'s last range, or node 1 when node 0 (the CLI's seed) leads it. */
  static int leaderOfLastUsersRange() {
    try (MetaCalls meta = new MetaCalls(List.of(address()), Duration.ofSeconds(30))) {
      ClusterRanges ranges = ClusterRanges.read(meta);
      RangeDescriptorProto last = ranges.ranges().stream()
          .filter(d -> ClusterRanges.span(d).overlaps(KeySpan.prefix(Key.utf8("users/")))).reduce((a, b) -> b)
          .orElseThrow();
      int i = cluster.indexOf(ranges.leaders().getOrDefault(last.getRangeId(), "n1"));
      return i <= 0 ? 1 : i;
    }
  }

  /** A cluster range of {@code target} with users/000..099 of the "full" backup staged on its nodes. */
  record Staged(RangeDescriptorProto range, IngestStagedRequest ingest, Map<Integer, Path> dirs) {}

  static Staged stage(PeerChannels channels, String restoreId, String prefix) throws Exception {
    CliRun.ok(run("presplit", "--at", prefix + "," + prefix + "100"));
    KeySpan target = new KeySpan(Key.utf8(prefix), dev.rangekv.core.key.RangeEnd.at(Key.utf8(prefix + "100")));
    Destination dest = Destinations.open(uri("full"), S3Settings.DEFAULTS);
    var source = Manifests.require(dest).getRanges(0); // [users/, users/100)
    RangeDescriptorProto d;
    try (MetaCalls meta = new MetaCalls(List.of(address()), Duration.ofSeconds(30))) {
      d = ClusterRanges.read(meta).ranges().stream().filter(r -> ClusterRanges.span(r).equals(target)).findFirst()
          .orElseThrow();
    }
    StageHeader header = StageHeader.newBuilder().setRestoreId(restoreId).setRangeId(d.getRangeId())
        .addAllFiles(source.getFilesList())
        .setStart(ProtoValues.bytes(target.start())).setEnd(ProtoValues.endBytes(target.end()))
        .setFromPrefix(ProtoValues.bytes(Key.utf8("users/"))).setToPrefix(ProtoValues.bytes(Key.utf8(prefix)))
        .setRewrite(true).build();
    IngestCommand.Builder ingest = IngestCommand.newBuilder().setRestoreId(restoreId).setStart(header.getStart())
        .setEnd(header.getEnd()).setRequireEmpty(true);
    Map<Integer, Path> dirs = new LinkedHashMap<>();
    for (ReplicaProto r : d.getReplicasList()) {
      StageUpload.send(channels.channel(r.getAddress()), dest, header, 30_000);
      ingest.addStagedNodeIds(r.getNodeId());
      int i = cluster.indexOf(r.getNodeId());
      dirs.put(i, cluster.config(i).dataDir().resolve("restores").resolve(restoreId).resolve("r" + d.getRangeId()));
    }
    IngestStagedRequest req = IngestStagedRequest.newBuilder()
        .setHeader(RangeHeader.newBuilder().setRangeId(d.getRangeId()).setGeneration(d.getGeneration()))
        .setIngest(ingest).build();
    return new Staged(d, req, dirs);
  }

  /** Proposes the staged ingest through whichever running replica leads (retried while a leader is elected). */
  static void ingest(PeerChannels channels, Staged staged) {
    List<String> up = staged.range().getReplicasList().stream()
        .filter(r -> cluster.isRunning(cluster.indexOf(r.getNodeId()))).map(ReplicaProto::getAddress).toList();
    Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> up.stream().anyMatch(a -> {
      try {
        return BackupServiceGrpc.newBlockingStub(channels.channel(a)).withDeadlineAfter(20, TimeUnit.SECONDS)
            .ingestStaged(staged.ingest()).getAppliedIndex() > 0;
      } catch (io.grpc.StatusRuntimeException e) {
        return false; // not the leader, or a leader being elected
      }
    }));
  }

  /** users/000..099 as the "full" backup holds them, keyed by the part after the prefix. */
  static Map<String, String> firstHundredUsers() {
    Map<String, String> expected = new LinkedHashMap<>();
    scan("copy/").forEach((k, v) -> { // copy/ holds the "full" backup (restored with --overwrite)
      if (k.compareTo("100") < 0) {
        expected.put(k, v);
      }
    });
    return expected;
  }

  @Test
  @Order(9)
  void aReplicaStoppedBetweenStagingAndIngest_theMajorityIngests_andTheReplicaAppliesItsStagedCopyWhenBack()
      throws Exception {
    PeerChannels channels = PeerChannels.forCommand(64 << 20, Optional.empty());
    try {
      Staged staged = stage(channels, "it-lost", "lost/");
      int lost = 2;
      Path stagedOnLost = staged.dirs().get(lost);
      assertThat(stagedOnLost).isDirectory();
      cluster.stop(lost);

      ingest(channels, staged);
      assertThat(scan("lost/")).hasSize(100).isEqualTo(firstHundredUsers());
      assertThat(stagedOnLost).as("the stopped node's copy waits for it").isDirectory();

      cluster.restart(lost);
      var store = cluster.node(lost).store();
      Awaitility.await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
        assertThat(store.scan(Key.utf8("lost/"), KeySpan.prefixEnd(Key.utf8("lost/")), 1000, false)).hasSize(100);
        assertThat(stagedOnLost).doesNotExist();
      });
      assertThat(store.get(Key.utf8("lost/042")).map(v -> new String(v, StandardCharsets.UTF_8))).hasValue("name-42");
    } finally {
      channels.close();
    }
  }

  @Test
  @Order(10)
  void aReplicaWithoutAStagedCopy_installsTheRestoredSpanFromANodeThatStagedIt_andKeepsApplying() throws Exception {
    PeerChannels channels = PeerChannels.forCommand(64 << 20, Optional.empty());
    try {
      Staged staged = stage(channels, "it-gone", "gone/");
      // what a replica that joined after the staging (or whose copy was lost) meets: no staged files here
      int bare = 1;
      deleteTree(staged.dirs().get(bare));

      ingest(channels, staged);
      assertThat(scan("gone/")).hasSize(100).isEqualTo(firstHundredUsers());
      var store = cluster.node(bare).store();
      Awaitility.await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(
          store.scan(Key.utf8("gone/"), KeySpan.prefixEnd(Key.utf8("gone/")), 1000, false)).hasSize(100));

      kv.run(c -> {
        c.put(Key.utf8("gone/zzz"), "after".getBytes(StandardCharsets.UTF_8));
        return null;
      });
      Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
          store.get(Key.utf8("gone/zzz")).map(v -> new String(v, StandardCharsets.UTF_8))).hasValue("after"));
    } finally {
      channels.close();
    }
  }

  @Test
  @Order(11)
  void aRestoreWhileAReplicasNodeIsDown_failsBeforeAnyKeyOfTheRangeIsVisible_andLeavesNoStagedFiles() throws IOException {
    // split first: the pre-split of a restore waits on the controller, which re-elects when node 2 goes
    CliRun.ok(run("presplit", "--at", "down/,down/100,down/200,down0"));
    cluster.stop(2);
    CliRun r = run("restore", "--from", uri("full"), "--span", "users/", "--into-prefix", "down/", "--timeout", "30s");
    assertThat(r.exit()).as(r.toString()).isEqualTo(1);
    assertThat(r.err()).contains("cannot stage the files of r").contains("was restored");
    assertThat(scan("down/")).isEmpty();
    for (int i = 0; i < 2; i++) { // the failed restore discarded what it had staged on the nodes that are up
      assertThat(stagedRanges(cluster.config(i).dataDir().resolve("restores"))).as("staged on node " + i).isEmpty();
    }

    cluster.restart(2); // the same restore run again completes
    CliRun.ok(run("restore", "--from", uri("full"), "--span", "users/", "--into-prefix", "down/", "--timeout", "30s"));
    Map<String, String> down = scan("down/");
    assertThat(down.size()).as("keys under down/").isEqualTo(USERS);
    assertThat(down.equals(scan("copy/"))).as("down/ holds what copy/ (restored from the same backup) holds").isTrue();
  }

  static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  /** The range folders (complete or .part) under a node's restores folder. */
  static List<Path> stagedRanges(Path restores) throws IOException {
    if (!Files.isDirectory(restores)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(restores, 2)) {
      return s.filter(p -> p.getNameCount() == restores.getNameCount() + 2).toList();
    }
  }
}
