package dev.rangekv.cli.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.rangekv.cli.CliRun;
import dev.rangekv.proto.AdminMergeRequest;
import dev.rangekv.proto.AdminMoveRequest;
import dev.rangekv.proto.AdminSplitRequest;
import dev.rangekv.proto.ListEventsRequest;
import dev.rangekv.proto.PreSplitRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The admin commands against fake meta servers: a follower that redirects, and the meta leader. */
@Timeout(60)
class AdminCommandsTest {
  private static FakeMetaServers servers;

  @BeforeAll
  static void start() throws Exception {
    servers = new FakeMetaServers();
  }

  @AfterAll
  static void stop() throws Exception {
    servers.close();
  }

  @BeforeEach
  void clear() {
    servers.requests.clear();
  }

  /** Through the follower first, so every call exercises the NOT_LEADER redirect. */
  private static CliRun run(String... args) {
    String[] all = new String[args.length + 2];
    System.arraycopy(args, 0, all, 0, args.length);
    all[args.length] = "--cluster";
    all[args.length + 1] = servers.followerAddress();
    return CliRun.of(all);
  }

  @Test
  void ranges_followsTheLeaderHint_andPrintsOneRowPerRange() {
    CliRun r = run("ranges");
    assertThat(r.exit()).as(r.toString()).isZero();
    assertThat(r.out()).isEqualTo(
        "RANGE  SPAN       GEN  REPLICAS  LEADER     SIZE  KEYS  QPS  STATE\n"
            + "r1     [\"\", m)      3  n1,n2,n3  n1      3.0 MiB  1200  251  awake\n"
            + "r7     [m, +inf)    4  n2,n3,n4  n4        512 B     3  0.0  awake\n"
            + "-- 2 ranges, map version 9\n");
  }

  @Test
  void ranges_json_carriesHexBoundsAndStats() {
    CliRun r = run("ranges", "--json");
    assertThat(r.exit()).as(r.toString()).isZero();
    assertThat(r.out()).startsWith("{\"mapVersion\":9,\"ranges\":[{\"rangeId\":1,\"start\":\"\",\"startHex\":\"\","
        + "\"startText\":\"\\\"\\\"\",\"end\":\"m\",\"endHex\":\"6d\",\"endText\":\"m\",\"generation\":3,"
        + "\"replicas\":[{\"nodeId\":\"n1\"")
        .contains("\"leader\":\"n4\",\"bytes\":512,\"keys\":3,\"readQps\":0,\"writeQps\":0,\"placementViolations\":\"\"}")
        .contains("\"end\":null,\"endHex\":null,\"endText\":\"+inf\"");
  }

  @Test
  void nodes_marksDeadNodesAndTheMetaLeader() {
    CliRun r = run("nodes");
    assertThat(r.exit()).as(r.toString()).isZero();
    assertThat(r.out()).contains("n1    127.0.0.1:7001  -     live,meta-leader")
        .contains("n3    127.0.0.1:7003  -     dead")
        .contains("-- 4 nodes, 3 live, meta leader n1");
  }

  @Test
  void events_printsReasonsAndFigures_andFiltersByRange() {
    CliRun r = run("events", "--range", "r7", "--limit", "1");
    assertThat(r.exit()).as(r.toString()).isZero();
    assertThat(r.out()).isEqualTo("#6 00:00:01 alert-monotonic [r7] the last range was the hottest in 9 of 10 ticks\n");
    assertThat(servers.requests).containsExactly(ListEventsRequest.newBuilder().setRangeId(7).build());

    CliRun all = run("events");
    assertThat(all.out()).contains(
        "#5 00:00:00 split [r1,r7] r1 split at \"m\" -> r1, r7 — size above max-bytes (bytes=2200000 max-bytes=1048576)");
  }

  @Test
  void why_showsTheRangeItsDecisionsAndEvents() {
    CliRun r = run("why", "7");
    assertThat(r.exit()).as(r.toString()).isZero();
    assertThat(r.out()).contains("r7     [m, +inf)").contains("latest decisions:\n  #6").contains("events:\n  #5");
  }

  @Test
  void why_unknownRange_isOneLineError() {
    CliRun r = run("why", "42");
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("error: unknown range 42\n");
  }

  @Test
  void split_atKey_sendsTheKey_andPrintsBothHalves() {
    CliRun r = run("split", "--at", "p");
    assertThat(r.exit()).as(r.toString()).isZero();
    assertThat(r.out()).isEqualTo("split r7: r7 [m, p) and r8 [p, +inf) on n2,n3,n4\n");
    assertThat(servers.requests).containsExactly(AdminSplitRequest.newBuilder().setSplitKey(ByteString.copyFromUtf8("p")).build());
  }

  @Test
  void split_ofUnknownRange_failsWithoutRetrying() {
    CliRun r = run("split", "--range", "42");
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("error: unknown range 42\n");
    assertThat(servers.requests).hasSize(1);
  }

  @Test
  void split_needsAKeyOrARange() {
    assertThat(run("split").exit()).isEqualTo(2);
  }

  @Test
  void merge_move_presplit_sendTheirRequests() {
    assertThat(run("merge", "--range", "1").out()).isEqualTo("merged into r1 [\"\", +inf) generation 6 on n1,n2,n3\n");
    CliRun move = run("move", "--range", "r7", "--from", "n4", "--to", "n1", "--json");
    assertThat(move.out()).startsWith("{\"rangeId\":7,").contains("\"generation\":6");
    CliRun pre = run("presplit", "--hex", "--at", "67,7a", "--scatter");
    assertThat(pre.out()).endsWith("-- 2 ranges, scattered\n");
    assertThat(servers.requests).containsExactly(
        AdminMergeRequest.newBuilder().setLeftRangeId(1).build(),
        AdminMoveRequest.newBuilder().setRangeId(7).setFromNodeId("n4").setToNodeId("n1").build(),
        PreSplitRequest.newBuilder().addSplitKeys(ByteString.copyFromUtf8("g")).addSplitKeys(ByteString.copyFromUtf8("z"))
            .setScatter(true).build());
  }

  @Test
  void presplit_uniform_isBounded() {
    assertThat(run("presplit", "--uniform", "1").exit()).isEqualTo(2);
    assertThat(run("presplit", "--uniform", "8").exit()).isZero();
    assertThat(servers.requests).containsExactly(PreSplitRequest.newBuilder().setUniform(8).build());
  }

  @Test
  void presplitProgress_countsRangesAndTheirMostCommonFullReplication() {
    java.util.List<dev.rangekv.proto.RangeDescriptorProto> ranges = new java.util.ArrayList<>();
    for (int i = 0; i < 5; i++) {
      dev.rangekv.proto.RangeDescriptorProto.Builder d = dev.rangekv.proto.RangeDescriptorProto.newBuilder().setRangeId(i);
      for (int n = 0; n < (i < 2 ? 1 : 3); n++) {
        d.addReplicas(dev.rangekv.proto.ReplicaProto.newBuilder().setNodeId("n" + n));
      }
      ranges.add(d.build());
    }
    assertThat(PresplitCommand.progressLine(ranges, java.time.Duration.ofSeconds(25)))
        .isEqualTo("presplit: 5 ranges so far, 3 of them on 3 nodes (25s)");
    assertThat(PresplitCommand.DEFAULT_DEADLINE).isGreaterThanOrEqualTo(java.time.Duration.ofMinutes(3));
  }
}
