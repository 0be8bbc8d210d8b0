package dev.rangekv.server.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.proto.BatchRequest;
import dev.rangekv.proto.BatchResponse;
import dev.rangekv.proto.Condition;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.proto.ListRangesRequest;
import dev.rangekv.proto.Mutation;
import dev.rangekv.proto.PutRequest;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.ReplicaStatus;
import dev.rangekv.proto.ScanRequest;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.testcluster.ClusterRouter;
import dev.rangekv.testkit.Await;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The client KV API on a 3-node in-JVM cluster: reads, writes, redirects, bad input, stale generations. */
@Timeout(180)
class KvApiIT {
  @TempDir static Path dir;
  static LocalCluster cluster;
  static ClusterRouter router;

  @BeforeAll
  static void start() throws Exception {
    cluster = LocalCluster.start(3, dir, RaftTuning.forTests());
    router = ClusterSteps.router(cluster);
    router.refresh();
    router.put("warmup", "1");
  }

  @AfterAll
  static void stop() {
    if (router != null) {
      router.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Timeout(60)
  void put_get_delete_cas_scan_batch_throughTheLeader() {
    router.put("api/a", "1");
    router.put("api/b", "2");
    router.put("api/c", "3");
    assertThat(router.get("api/a")).contains("1");
    assertThat(router.get("api/zz")).isEmpty();

    router.delete("api/b");
    assertThat(router.get("api/b")).isEmpty();

    assertThat(router.cas("api/a", "1", "10").getSucceeded()).isTrue();
    var failed = router.cas("api/a", "1", "11");
    assertThat(failed.getSucceeded()).isFalse();
    assertThat(failed.getCurrentValue().toStringUtf8()).isEqualTo("10");
    assertThat(router.cas("api/new", null, "n").getSucceeded()).isTrue();
    assertThat(router.cas("api/new", null, "n2").getSucceeded()).isFalse();

    List<KeyValueProto> all = router.scan(Key.utf8("api/"), Key.utf8("api/").prefixEnd(), 0);
    assertThat(all).extracting(kv -> kv.getKey().toStringUtf8()).containsExactly("api/a", "api/c", "api/new");
    assertThat(router.scan(Key.utf8("api/"), Key.utf8("api/").prefixEnd(), 2)).hasSize(2);
    var reversed = router.call(Key.utf8("api/"), (a, d) -> router.kv(a).scan(ScanRequest.newBuilder()
        .setHeader(ClusterRouter.header(d)).setLo(bytes("api/")).setHi(bytes("api0")).setLimit(2).setReverse(true).build()));
    assertThat(reversed.getEntriesList()).extracting(kv -> kv.getKey().toStringUtf8()).containsExactly("api/new", "api/c");
    // limit is uint32: 2^31 and above arrive as a negative int and must mean "all", not "none"
    for (long huge : new long[] {1L << 31, (1L << 32) - 1}) {
      var all2 = router.call(Key.utf8("api/"), (a, d) -> router.kv(a).scan(ScanRequest.newBuilder()
          .setHeader(ClusterRouter.header(d)).setLo(bytes("api/")).setHi(bytes("api0")).setLimit((int) huge).build()));
      assertThat(all2.getEntriesList()).as("limit=%d", huge).extracting(kv -> kv.getKey().toStringUtf8())
          .containsExactly("api/a", "api/c", "api/new");
    }

    // an atomic batch: a failing check applies nothing; a passing one applies everything
    BatchResponse refused = batch(
        check("api/c", "wrong"), put("api/x", "x"), del("api/c"));
    assertThat(refused.getSucceeded()).isFalse();
    assertThat(refused.getFailedCheckIndex()).isZero();
    assertThat(router.get("api/x")).isEmpty();
    BatchResponse applied = batch(check("api/c", "3"), put("api/x", "x"), del("api/c"));
    assertThat(applied.getSucceeded()).isTrue();
    assertThat(router.get("api/x")).contains("x");
    assertThat(router.get("api/c")).isEmpty();
  }

  @Test
  @Timeout(60)
  void retriedWrite_withSameWriteId_appliesOnce() {
    router.put("once/k", "0");
    var id = router.nextWriteId();
    // CAS 0 -> 1 sent twice with one write id: the retry returns the first outcome, not a failed check
    Supplier<Boolean> send = () -> router.call(Key.utf8("once/k"), (a, d) -> router.kv(a).compareAndSet(
        dev.rangekv.proto.CompareAndSetRequest.newBuilder().setHeader(ClusterRouter.header(d)).setWriteId(id)
            .setKey(bytes("once/k")).setExpectedValue(bytes("0")).setNewValue(bytes("1")).build())).getSucceeded();
    assertThat(send.get()).isTrue();
    assertThat(send.get()).isTrue();
    assertThat(router.get("once/k")).contains("1");
  }

  @Test
  @Timeout(60)
  void follower_refusesWithLeaderHint() {
    RangeDescriptorProto d = router.lookup(Key.utf8("f/k")).orElseThrow();
    String leaderId = null;
    String followerAddress = null;
    Await.until(Duration.ofSeconds(20), "a leader for the range", () -> leaderOf(d.getRangeId()) != null);
    leaderId = leaderOf(d.getRangeId());
    for (int i = 0; i < cluster.size(); i++) {
      if (!cluster.config(i).nodeId().equals(leaderId)) {
        followerAddress = cluster.config(i).clientAddress();
      }
    }
    String follower = followerAddress;
    RangeKvError error = errorOf(() -> router.kv(follower).put(PutRequest.newBuilder().setHeader(ClusterRouter.header(d))
        .setWriteId(router.nextWriteId()).setKey(bytes("f/k")).setValue(bytes("v")).build()));
    assertThat(error.hasNotLeader()).isTrue();
    assertThat(error.getNotLeader().getLeaderNodeId()).isEqualTo(leaderId);
    assertThat(error.getNotLeader().getLeaderAddress())
        .isEqualTo(cluster.config(cluster.indexOf(leaderId)).clientAddress());
    assertThat(error.getDefinitelyNotApplied()).isTrue();
  }

  @Test
  @Timeout(60)
  void badInput_isRejectedNamingTheLimit_andNothingIsWritten() {
    byte[] bigKey = new byte[8 * 1024 + 1];
    java.util.Arrays.fill(bigKey, (byte) 'k');
    ByteString mib = ByteString.copyFrom(new byte[1 << 20]);
    assertThat(limitOf(() -> putRaw(ByteString.EMPTY, bytes("v")))).isEqualTo("key.empty");
    assertThat(limitOf(() -> putRaw(ByteString.copyFrom(bigKey), bytes("v")))).isEqualTo("key.max-bytes");
    assertThat(limitOf(() -> putRaw(bytes("bad/v"), mib.concat(bytes("x"))))).isEqualTo("value.max-bytes");
    // a 2 MiB value breaks the request size too: the value limit is the one named, with its size
    RangeKvError twoMib = errorOf(() -> putRaw(bytes("bad/v2"), mib.concat(mib)));
    assertThat(twoMib.getInvalidArgument().getLimit()).isEqualTo("value.max-bytes");
    assertThat(twoMib.getMessage()).contains("1 MiB");
    assertThat(limitOf(() -> router.call(Key.utf8("bad/r"), (a, d) -> router.kv(a).batch(BatchRequest.newBuilder()
        .setHeader(ClusterRouter.header(d)).setWriteId(router.nextWriteId())
        .addMutations(put("bad/r1", mib)).addMutations(put("bad/r2", mib)).addMutations(put("bad/r3", mib))
        .build())))).isEqualTo("request.max-bytes");
    assertThat(limitOf(() -> router.call(Key.utf8("bad/z"), (a, d) -> router.kv(a).scan(ScanRequest.newBuilder()
        .setHeader(ClusterRouter.header(d)).setLo(bytes("bad/z")).setHi(bytes("bad/a")).build())))).isEqualTo("scan.bounds");
    assertThat(router.scan(Key.utf8("bad/"), Key.utf8("bad/").prefixEnd(), 0)).isEmpty();
  }

  @Test
  @Timeout(90)
  void aWriteRetriedUnderItsIdAfterASplit_appliesOnce_inTheChildRange() {
    // what a client does after an ambiguous outcome: it retries under the same write id, possibly to a
    // range that split meanwhile; the child inherited the dedupe records, so the retry is answered, not redone
    router.put("dedupe/k", "0");
    var id = router.nextWriteId();
    Supplier<Boolean> send = () -> router.call(Key.utf8("dedupe/k"), (a, d) -> router.kv(a).compareAndSet(
        dev.rangekv.proto.CompareAndSetRequest.newBuilder().setHeader(ClusterRouter.header(d)).setWriteId(id)
            .setKey(bytes("dedupe/k")).setExpectedValue(bytes("0")).setNewValue(bytes("1")).build())).getSucceeded();
    assertThat(send.get()).isTrue();
    long parent = router.lookup(Key.utf8("dedupe/k")).orElseThrow().getRangeId();
    router.split(Key.utf8("dedupe/j"));
    // the nodes list the child once its group runs: until then a refreshed tiling has a gap there
    Await.until(Duration.ofSeconds(30), "dedupe/k listed in the split's child", () -> {
      router.refresh();
      return router.lookup(Key.utf8("dedupe/k")).map(d -> d.getRangeId() != parent).orElse(false);
    });
    assertThat(send.get()).as("the retry's answer is the first outcome, not a failed check").isTrue();
    assertThat(router.get("dedupe/k")).contains("1");
  }

  @Test
  @Timeout(90)
  void staleGeneration_afterSplit_getsRangeMovedWithBothHalves() {
    router.put("stale/a", "1");
    router.put("stale/z", "2");
    RangeDescriptorProto before = router.lookup(Key.utf8("stale/m")).orElseThrow();
    router.split(Key.utf8("stale/m"));
    RangeKvError error = errorOf(() -> router.kv(router.lookup(Key.utf8("stale/a")).orElseThrow().getReplicas(0).getAddress())
        .put(PutRequest.newBuilder().setHeader(ClusterRouter.header(before)).setWriteId(router.nextWriteId())
            .setKey(bytes("stale/z")).setValue(bytes("3")).build()));
    if (error.hasNotLeader()) { // replica 0 was not the leader: ask the leader
      String leader = error.getNotLeader().getLeaderAddress();
      error = errorOf(() -> router.kv(leader).put(PutRequest.newBuilder().setHeader(ClusterRouter.header(before))
          .setWriteId(router.nextWriteId()).setKey(bytes("stale/z")).setValue(bytes("3")).build()));
    }
    assertThat(error.hasRangeMoved()).as("error %s", error).isTrue();
    assertThat(error.getDefinitelyNotApplied()).isTrue();
    List<dev.rangekv.core.rangemap.RangeDescriptor> current =
        error.getRangeMoved().getCurrentList().stream().map(ProtoValues::descriptor).toList();
    assertThat(current).anySatisfy(r -> {
      assertThat(r.rangeId()).isEqualTo(before.getRangeId());
      assertThat(r.end()).isEqualTo(RangeEnd.at(Key.utf8("stale/m")));
      assertThat(r.generation()).isEqualTo(before.getGeneration() + 1);
    });
    assertThat(current).anySatisfy(r -> assertThat(r.start()).isEqualTo(Key.utf8("stale/m")));
    assertThat(router.get("stale/a")).contains("1");
    assertThat(router.get("stale/z")).contains("2");
    router.put("stale/z", "4");
    assertThat(router.get("stale/z")).contains("4");
  }

  private static String leaderOf(long rangeId) {
    for (int i = 0; i < cluster.size(); i++) {
      for (ReplicaStatus s : router.kv(cluster.config(i).clientAddress())
          .listRanges(ListRangesRequest.getDefaultInstance()).getReplicasList()) {
        if (s.getRange().getRangeId() == rangeId && s.getLeader()) {
          return cluster.config(i).nodeId();
        }
      }
    }
    return null;
  }

  private static Object putRaw(ByteString key, ByteString value) {
    return router.call(Key.utf8("bad/"), (a, d) -> router.kv(a).put(PutRequest.newBuilder()
        .setHeader(ClusterRouter.header(d)).setWriteId(router.nextWriteId()).setKey(key).setValue(value).build()));
  }

  private static BatchResponse batch(Mutation... mutations) {
    return router.call(Key.utf8("api/"), (a, d) -> router.kv(a).batch(BatchRequest.newBuilder()
        .setHeader(ClusterRouter.header(d)).setWriteId(router.nextWriteId()).addAllMutations(List.of(mutations)).build()));
  }

  private static Mutation put(String k, String v) {
    return put(k, bytes(v));
  }

  private static Mutation put(String k, ByteString v) {
    return Mutation.newBuilder().setPut(KeyValueProto.newBuilder().setKey(bytes(k)).setValue(v)).build();
  }

  private static Mutation del(String k) {
    return Mutation.newBuilder().setDelete(bytes(k)).build();
  }

  private static Mutation check(String k, String v) {
    return Mutation.newBuilder().setCheck(Condition.newBuilder().setKey(bytes(k)).setExpectedValue(bytes(v))).build();
  }

  private static ByteString bytes(String s) {
    return ByteString.copyFromUtf8(s);
  }

  private static RangeKvError errorOf(Runnable call) {
    StatusRuntimeException e = (StatusRuntimeException) org.assertj.core.api.Assertions.catchThrowable(call::run);
    assertThat(e).as("call should fail").isNotNull();
    return RangeKvErrors.fromThrowable(e).orElseThrow(() -> new AssertionError("no typed error in " + e));
  }

  private static String limitOf(Runnable call) {
    StatusRuntimeException e = (StatusRuntimeException) org.assertj.core.api.Assertions.catchThrowable(call::run);
    assertThat(e).as("call should fail").isNotNull();
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    RangeKvError error = RangeKvErrors.fromThrowable(e).orElseThrow();
    assertThat(error.getDefinitelyNotApplied()).isTrue();
    return error.getInvalidArgument().getLimit();
  }

}
