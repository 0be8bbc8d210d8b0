package dev.rangekv.server.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.CompareAndSetRequest;
import dev.rangekv.proto.DeleteRequest;
import dev.rangekv.proto.GetRequest;
import dev.rangekv.proto.KvCall;
import dev.rangekv.proto.KvCallResult;
import dev.rangekv.proto.KvCallResults;
import dev.rangekv.proto.KvCalls;
import dev.rangekv.proto.PutRequest;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.WriteId;
import dev.rangekv.server.consensus.FakeCluster;
import dev.rangekv.server.consensus.FakeNodes;
import dev.rangekv.server.replica.RangeReplica;
import dev.rangekv.server.split.RangeIdSource;
import dev.rangekv.server.split.SplitProposer;
import dev.rangekv.server.stats.LoadRecorder;
import dev.rangekv.server.stats.StoreTailBaselines;
import dev.rangekv.storage.KeyValue;
import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The call stream ({@code KvService.Calls}) above the consensus seam, on three nodes of a {@link
 * FakeCluster}: each node's {@link KvServiceImpl} serves a stream whose messages carry puts, deletes,
 * compare-and-sets and gets on distinct keys, routed to each range's leader as a client does, with a
 * split, drops, delays and leader changes drawn from the seed. Every call is answered once, by its id;
 * answers agree with a map of the acknowledged writes (a write whose outcome is unknown leaves its key
 * unchecked from then on), and so does every node's data at the end. A stream on a follower answers
 * each call with a typed NOT_LEADER naming the leader and stays open.
 */
class CallStreamOnFakeEngineTest {
  private static final ByteString CLIENT = ByteString.copyFrom(new byte[16]);

  @TempDir Path dir;
  private long requestId;

  /** A client's end of one node's call stream: every answer that came back, and the stream's end. */
  private static final class Answers implements StreamObserver<KvCallResults> {
    final List<KvCallResult> results = new ArrayList<>();
    Throwable error;
    boolean completed;

    @Override
    public void onNext(KvCallResults value) {
      results.addAll(value.getResultsList());
    }

    @Override
    public void onError(Throwable t) {
      error = t;
    }

    @Override
    public void onCompleted() {
      completed = true;
    }
  }

  private record Stream(StreamObserver<KvCalls> in, Answers answers) {}

  private static Stream open(FakeNodes.Node n) {
    KvServiceImpl kv = new KvServiceImpl(n.gateway(), n.proposals(), InputLimits.defaults(),
        LoadRecorder.create(new StoreTailBaselines(n.directory(), n.store()), 0), Runnable::run,
        (method, outcome, nanos) -> { }, rangeId -> CompletableFuture.completedFuture(null),
        new ReplicaListing(n.id(), n.engine(), n.directory(), n.store()));
    Answers answers = new Answers();
    return new Stream(kv.calls(answers), answers);
  }

  @Test
  void callsOnStreams_underSeededFaults_areEachAnsweredOnce_andAgreeWithTheAcknowledgedWrites() {
    Property.named("call streams").cases(10).sizes(5, 30).check(this::streamCase);
  }

  private void streamCase(Gen gen) throws Exception {
    FakeCluster cluster = new FakeCluster(gen.nextLong(), new FakeCluster.Faults(0.1, 20, 0.01));
    try (FakeNodes nodes = new FakeNodes(cluster, Files.createTempDirectory(dir, "case"), 3)) {
      nodes.bootstrap();
      Map<String, Stream> streams = new HashMap<>();
      nodes.all().forEach(n -> streams.put(n.id(), open(n)));
      Map<String, String> model = new TreeMap<>();
      Set<String> unknown = new HashSet<>();
      int splitAt = gen.nextInt(gen.size());
      for (int round = 0; round < gen.size(); round++) {
        if (round == splitAt) {
          split(nodes, "m");
        }
        List<String> keys = new ArrayList<>();
        for (int k = 1 + gen.nextInt(8); k > 0; k--) {
          String key = String.valueOf((char) ('a' + gen.nextInt(26))) + gen.nextInt(3);
          if (!keys.contains(key)) {
            keys.add(key);
          }
        }
        // one message per node: each call goes to its range's leader (any node while leaderless)
        Map<String, KvCalls.Builder> messages = new LinkedHashMap<>();
        Map<Long, String> keyOf = new HashMap<>();
        Map<Long, KvCall> sent = new HashMap<>();
        for (String key : keys) {
          RangeDescriptor d = rangeOf(nodes, key);
          String leader = cluster.leaderOf(d.rangeId());
          String to = leader.isEmpty() ? gen.pick(nodes.all()).id() : leader;
          KvCall call = call(gen, d, key, model, round);
          messages.computeIfAbsent(to, x -> KvCalls.newBuilder()).addCalls(call);
          keyOf.put(call.getId(), key);
          sent.put(call.getId(), call);
        }
        Map<String, Integer> before = new HashMap<>();
        streams.forEach((id, s) -> before.put(id, s.answers().results.size()));
        messages.forEach((to, m) -> streams.get(to).in().onNext(m.build()));
        cluster.run();

        Map<Long, KvCallResult> answered = new HashMap<>();
        streams.forEach((id, s) -> {
          for (KvCallResult r : s.answers().results.subList(before.get(id), s.answers().results.size())) {
            assertThat(answered.put(r.getId(), r)).as("call %d answered once", r.getId()).isNull();
          }
          assertThat(s.answers().error).as("stream on %s", id).isNull();
        });
        assertThat(answered.keySet()).as("every call of round %d answered", round).isEqualTo(sent.keySet());
        answered.forEach((id, r) -> check(sent.get(id), r, keyOf.get(id), model, unknown));
      }
      cluster.run();
      for (FakeNodes.Node n : nodes.all()) {
        Map<String, String> stored = scan(n);
        unknown.forEach(stored::remove);
        Map<String, String> expected = new TreeMap<>(model);
        unknown.forEach(expected::remove);
        assertThat(stored).as("data on %s", n.id()).isEqualTo(expected);
      }
    }
  }

  @Test
  void aStreamOnAFollower_answersEachCallWithNotLeader_andStaysOpen() {
    FakeCluster cluster = new FakeCluster(5, FakeCluster.Faults.NONE);
    try (FakeNodes nodes = new FakeNodes(cluster, dir, 3)) {
      nodes.bootstrap();
      cluster.electLeader(1, "n1");
      cluster.run();
      Stream onFollower = open(nodes.node("n2"));
      RangeDescriptor d = rangeOf(nodes, "a");
      for (int message = 0; message < 2; message++) {
        onFollower.in().onNext(KvCalls.newBuilder()
            .addCalls(KvCall.newBuilder().setId(10 * message + 1).setPut(PutRequest.newBuilder().setHeader(header(d))
                .setWriteId(writeId()).setKey(bytes("a")).setValue(bytes("v"))))
            .addCalls(KvCall.newBuilder().setId(10 * message + 2).setGet(GetRequest.newBuilder().setHeader(header(d))
                .setKey(bytes("a"))))
            .build());
        cluster.run();
      }

      assertThat(onFollower.answers().results).extracting(KvCallResult::getId).containsExactlyInAnyOrder(1L, 2L, 11L, 12L);
      assertThat(onFollower.answers().results).allSatisfy(r -> {
        assertThat(r.getError().getNotLeader().getLeaderNodeId()).isEqualTo("n1");
        assertThat(r.getError().getDefinitelyNotApplied()).isTrue();
      });
      assertThat(onFollower.answers().error).isNull();
      assertThat(onFollower.answers().completed).isFalse();
      assertThat(scan(nodes.node("n1"))).isEmpty();
    }
  }

  /** A random call on {@code key}: a put, a delete, a compare-and-set (right or wrong about the value) or a get. */
  private KvCall call(Gen gen, RangeDescriptor d, String key, Map<String, String> model, int round) {
    KvCall.Builder c = KvCall.newBuilder().setId(++requestId);
    String value = key + "-" + round;
    switch (gen.nextInt(4)) {
      case 0 -> c.setPut(PutRequest.newBuilder().setHeader(header(d)).setWriteId(writeId(requestId))
          .setKey(bytes(key)).setValue(bytes(value)));
      case 1 -> c.setDelete(DeleteRequest.newBuilder().setHeader(header(d)).setWriteId(writeId(requestId))
          .setKey(bytes(key)));
      case 2 -> {
        CompareAndSetRequest.Builder cas = CompareAndSetRequest.newBuilder().setHeader(header(d))
            .setWriteId(writeId(requestId)).setKey(bytes(key)).setNewValue(bytes(value));
        String current = model.get(key);
        boolean right = gen.chance(0.7);
        if (current == null) {
          cas.setExpectAbsent(right).setExpectedValue(bytes(right ? "" : "nope"));
        } else {
          cas.setExpectedValue(bytes(right ? current : current + "-not"));
        }
        c.setCompareAndSet(cas);
      }
      default -> c.setGet(GetRequest.newBuilder().setHeader(header(d)).setKey(bytes(key)));
    }
    return c.build();
  }

  /** Checks one answer against the model and applies it there. */
  private static void check(KvCall call, KvCallResult r, String key, Map<String, String> model, Set<String> unknown) {
    if (r.hasError()) {
      boolean write = !call.hasGet();
      if (write && !r.getError().getDefinitelyNotApplied()) {
        unknown.add(key); // it may have applied: the key is unchecked from now on
      }
      return;
    }
    if (unknown.contains(key)) {
      return;
    }
    switch (call.getOpCase()) {
      case PUT -> {
        assertThat(r.hasPut()).isTrue();
        model.put(key, call.getPut().getValue().toStringUtf8());
      }
      case DELETE -> {
        assertThat(r.hasDelete()).isTrue();
        model.remove(key);
      }
      case COMPARE_AND_SET -> {
        CompareAndSetRequest cas = call.getCompareAndSet();
        String current = model.get(key);
        boolean matches = cas.getExpectAbsent() ? current == null
            : current != null && current.equals(cas.getExpectedValue().toStringUtf8());
        assertThat(r.getCompareAndSet().getSucceeded()).as("cas on %s (model %s)", key, current).isEqualTo(matches);
        if (matches) {
          model.put(key, cas.getNewValue().toStringUtf8());
        } else {
          assertThat(r.getCompareAndSet().getCurrentFound()).isEqualTo(current != null);
          if (current != null) {
            assertThat(r.getCompareAndSet().getCurrentValue().toStringUtf8()).isEqualTo(current);
          }
        }
      }
      case GET -> {
        assertThat(r.getGet().getFound()).as("get %s", key).isEqualTo(model.containsKey(key));
        if (model.containsKey(key)) {
          assertThat(r.getGet().getValue().toStringUtf8()).as("get %s", key).isEqualTo(model.get(key));
        }
      }
      default -> throw new AssertionError("unexpected call " + call);
    }
  }

  /** The range holding {@code key} as n1 sees the ranges. */
  private static RangeDescriptor rangeOf(FakeNodes nodes, String key) {
    Key k = Key.utf8(key);
    return nodes.node("n1").directory().replicas().stream().map(RangeReplica::descriptor).flatMap(Optional::stream)
        .filter(r -> r.contains(k)).findFirst().orElseThrow();
  }

  /** Splits range 1 at {@code at} into child 2 on its leader (tried again while it is leaderless). */
  private static void split(FakeNodes nodes, String at) {
    for (int attempt = 0; attempt < 10 && nodes.node("n1").directory().replica(2).isEmpty(); attempt++) {
      nodes.cluster().run();
      String leaderId = nodes.cluster().leaderOf(1);
      if (leaderId.isEmpty()) {
        continue;
      }
      FakeNodes.Node leader = nodes.node(leaderId);
      RangeDescriptor d = leader.directory().replica(1).flatMap(RangeReplica::descriptor).orElseThrow();
      new SplitProposer(leader.splitHost(), leader.store(), RangeIdSource.absent(), applied -> { })
          .split(RangeHeader.newBuilder().setRangeId(1).setGeneration(d.generation()).build(), bytes(at), 2);
      nodes.cluster().run();
    }
  }

  private static RangeHeader header(RangeDescriptor d) {
    return RangeHeader.newBuilder().setRangeId(d.rangeId()).setGeneration(d.generation()).build();
  }

  private WriteId writeId() {
    return writeId(++requestId);
  }

  private static WriteId writeId(long id) {
    return WriteId.newBuilder().setClientId(CLIENT).setRequestId(id).build();
  }

  private static ByteString bytes(String s) {
    return ByteString.copyFromUtf8(s);
  }

  private static Map<String, String> scan(FakeNodes.Node n) {
    Map<String, String> out = new TreeMap<>();
    for (KeyValue kv : n.store().scan(Key.EMPTY, RangeEnd.INFINITY, 100_000, false)) {
      out.put(new String(kv.key().toByteArray(), StandardCharsets.UTF_8), new String(kv.value(), StandardCharsets.UTF_8));
    }
    return out;
  }
}
