package dev.rangekv.meta.controller;

import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.AdminSplitResponse;
import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.proto.WeightedKeyProto;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.meta.HeartbeatRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A cluster model: ranges with their data (key to size), replicas, leader and load; splits change the
 * map, replica changes the replica sets; every call is recorded. Heartbeats are produced from the
 * model. {@link FakeNodes} serves it to the controller as each node's admin API. Thread-safe (one lock),
 * except that added replicas may wait on a gate outside it.
 */
final class FakeCluster {
  static final class FakeRange {
    long id;
    Key start;
    RangeEnd end;
    List<String> replicas;
    long generation;
    String leader;
    NavigableMap<Key, Integer> data = new TreeMap<>();
    double readQps;
    double writeQps;
    long tailWrites;
    long tailAppends;
    Key maxWritten = Key.EMPTY;
    List<WeightedKeyProto> samples = List.of();

    RangeDescriptor descriptor() {
      return new RangeDescriptor(id, start, end, replicas, generation);
    }

    long bytes() {
      return data.values().stream().mapToLong(Integer::longValue).sum();
    }
  }

  private final TreeMap<Key, FakeRange> ranges = new TreeMap<>();
  private final List<String> nodes = new ArrayList<>();
  private final Set<String> dead = new HashSet<>();
  private final List<String> calls = new ArrayList<>();
  private final Map<String, RuntimeException> failNext = new HashMap<>();
  private long nextRangeId = 1;
  private volatile CountDownLatch moveGate;
  final AtomicInteger activeMoves = new AtomicInteger();
  final AtomicInteger maxActiveMoves = new AtomicInteger();

  FakeCluster(String... nodeIds) {
    nodes.addAll(List.of(nodeIds));
  }

  // ---- setup

  /** Ranges cut at {@code splitKeys}, each on {@code replicas} (the first leads). */
  synchronized List<FakeRange> tile(List<Key> splitKeys, List<String> replicas) {
    List<FakeRange> out = new ArrayList<>();
    for (int i = 0; i <= splitKeys.size(); i++) {
      FakeRange r = new FakeRange();
      r.id = nextRangeId++;
      r.start = i == 0 ? Key.EMPTY : splitKeys.get(i - 1);
      r.end = i == splitKeys.size() ? RangeEnd.INFINITY : RangeEnd.at(splitKeys.get(i));
      r.replicas = new ArrayList<>(replicas);
      r.generation = 1;
      r.leader = replicas.get(0);
      ranges.put(r.start, r);
      out.add(r);
    }
    return out;
  }

  synchronized void addNode(String nodeId) {
    nodes.add(nodeId);
  }

  synchronized void kill(String nodeId) {
    dead.add(nodeId);
    for (FakeRange r : ranges.values()) {
      if (nodeId.equals(r.leader)) {
        r.leader = r.replicas.stream().filter(n -> !dead.contains(n)).findFirst().orElse("");
      }
    }
  }

  synchronized void put(Key key, int size) {
    ranges.floorEntry(key).getValue().data.put(key, size);
  }

  synchronized void load(long rangeId, double readQps, List<WeightedKeyProto> samples) {
    FakeRange r = range(rangeId);
    r.readQps = readQps;
    r.samples = List.copyOf(samples);
  }

  /** Per-interval writes of a range: {@code appends} of them above its previous maximum key. */
  synchronized void writes(long rangeId, double writeQps, long writes, long appends, Key maxWritten) {
    FakeRange r = range(rangeId);
    r.writeQps = writeQps;
    r.tailWrites = writes;
    r.tailAppends = appends;
    r.maxWritten = maxWritten;
  }

  synchronized void failNext(String op, RuntimeException e) {
    failNext.put(op, e);
  }

  void gateMoves(CountDownLatch gate) {
    moveGate = gate;
  }

  // ---- observation

  synchronized List<String> calls() {
    return List.copyOf(calls);
  }

  synchronized List<FakeRange> ranges() {
    return List.copyOf(ranges.values());
  }

  synchronized List<RangeDescriptorProto> descriptors() {
    return ranges.values().stream().map(FakeCluster::proto).toList();
  }

  synchronized Map<String, Integer> replicaCounts() {
    Map<String, Integer> out = new HashMap<>();
    nodes.stream().filter(n -> !dead.contains(n)).forEach(n -> out.put(n, 0));
    for (FakeRange r : ranges.values()) {
      r.replicas.forEach(n -> out.merge(n, 1, Integer::sum));
    }
    return out;
  }

  synchronized List<String> liveNodes() {
    return nodes.stream().filter(n -> !dead.contains(n)).toList();
  }

  static NodeRecord record(String nodeId) {
    return NodeRecord.newBuilder().setNodeId(nodeId).setAddress("fake-node:" + nodeId)
        .setRaftAddress("127.0.0.1:1" + nodeId.length()).build();
  }

  /** The heartbeat {@code nodeId} would send now: every replica it holds, stats where it leads. */
  synchronized HeartbeatRequest heartbeat(String nodeId, long intervalMillis) {
    HeartbeatRequest.Builder b = HeartbeatRequest.newBuilder().setNode(record(nodeId)).setIntervalMillis(intervalMillis);
    for (FakeRange r : ranges.values()) {
      if (!r.replicas.contains(nodeId)) {
        continue;
      }
      RangeStatsProto.Builder s = RangeStatsProto.newBuilder().setRange(proto(r)).setLeader(nodeId.equals(r.leader));
      if (s.getLeader()) {
        s.setBytes(r.bytes()).setKeys(r.data.size()).setReadQps(r.readQps).addAllSampledKeys(r.samples)
            .setLeaderNodeId(nodeId).setWriteQps(r.writeQps).setTailWrites(r.tailWrites)
            .setTailAppends(r.tailAppends).setMaxWrittenKey(ProtoValues.bytes(r.maxWritten));
      }
      b.addRanges(s);
    }
    return b.build();
  }

  // ---- the nodes' admin calls (FakeNodes serves them)

  /** Splits as a node does, giving the right half {@code childId} (which no range may hold yet). */
  synchronized AdminSplitResponse split(long rangeId, Optional<ByteString> splitKey, long childId) {
    calls.add("split r" + rangeId + splitKey.map(k -> " at " + ProtoValues.key(k)).orElse(" at midpoint"));
    fail("split");
    FakeRange r = range(rangeId);
    Key at = splitKey.map(ProtoValues::key).orElseGet(() -> midpoint(r));
    if (!r.descriptor().contains(at) || r.start.equals(at)) {
      throw new IllegalArgumentException("split key " + at + " not inside " + r.descriptor());
    }
    if (childId <= 0 || ranges.values().stream().anyMatch(x -> x.id == childId)) {
      throw new IllegalStateException("child range id " + childId + " is not a fresh id");
    }
    FakeRange right = new FakeRange();
    right.id = childId;
    right.start = at;
    right.end = r.end;
    right.replicas = new ArrayList<>(r.replicas);
    right.leader = r.leader;
    right.generation = r.generation + 1;
    right.data = new TreeMap<>(r.data.tailMap(at, true));
    r.data = new TreeMap<>(r.data.headMap(at, false));
    // Load follows the sampled keys: each half keeps its samples and its share of the qps.
    double total = r.samples.stream().mapToDouble(WeightedKeyProto::getWeight).sum();
    right.samples = r.samples.stream().filter(w -> !ProtoValues.key(w.getKey()).isBefore(at)).toList();
    r.samples = r.samples.stream().filter(w -> ProtoValues.key(w.getKey()).isBefore(at)).toList();
    double rightShare = total == 0 ? 0 : right.samples.stream().mapToDouble(WeightedKeyProto::getWeight).sum() / total;
    right.readQps = r.readQps * rightShare;
    r.readQps = r.readQps - right.readQps;
    r.end = RangeEnd.at(at);
    r.generation++;
    ranges.put(at, right);
    return AdminSplitResponse.newBuilder().setLeft(proto(r)).setRight(proto(right)).build();
  }

  /** Notes that the split giving {@code childId} asked for it born dormant (a call {@code "born dormant rN"}). */
  synchronized void bornDormant(long childId) {
    calls.add("born dormant r" + childId);
  }

  private static Key midpoint(FakeRange r) {
    long half = r.bytes() / 2;
    long sum = 0;
    for (Map.Entry<Key, Integer> e : r.data.entrySet()) {
      sum += e.getValue();
      if (sum >= half && !e.getKey().equals(r.start)) {
        Key next = r.data.higherKey(e.getKey());
        return next != null ? next : e.getKey();
      }
    }
    throw new IllegalStateException("no midpoint in " + r.descriptor());
  }


  synchronized RangeDescriptorProto addReplica(long rangeId, String toNodeId) {
    calls.add("add r" + rangeId + " " + toNodeId);
    fail("add");
    FakeRange r = range(rangeId);
    check(!r.replicas.contains(toNodeId) && !dead.contains(toNodeId), "already a replica or down: " + toNodeId);
    r.replicas.add(toNodeId);
    r.generation++;
    return proto(r);
  }

  /** Swaps {@code fromNodeId}'s replica for one on {@code toNodeId} in one change (one generation). */
  synchronized RangeDescriptorProto replaceReplica(long rangeId, String fromNodeId, String toNodeId) {
    calls.add("replace r" + rangeId + " " + fromNodeId + " " + toNodeId);
    fail("replace");
    FakeRange r = range(rangeId);
    check(!r.replicas.contains(toNodeId) && !dead.contains(toNodeId), "already a replica or down: " + toNodeId);
    check(!fromNodeId.equals(r.leader), "the leader cannot replace itself: " + fromNodeId);
    int at = r.replicas.indexOf(fromNodeId);
    if (at < 0) {
      r.replicas.add(toNodeId);
    } else {
      r.replicas.set(at, toNodeId);
    }
    r.generation++;
    return proto(r);
  }

  synchronized RangeDescriptorProto removeReplica(long rangeId, String nodeId) {
    calls.add("remove r" + rangeId + " " + nodeId);
    fail("remove");
    FakeRange r = range(rangeId);
    check(r.replicas.contains(nodeId) && !nodeId.equals(r.leader), "bad remove of " + nodeId + " from " + r.descriptor());
    r.replicas.remove(nodeId);
    r.generation++;
    return proto(r);
  }

  synchronized void transferLeader(long rangeId, String toNodeId) {
    calls.add("leader r" + rangeId + " " + toNodeId);
    fail("leader");
    FakeRange r = range(rangeId);
    check(r.replicas.contains(toNodeId) && !dead.contains(toNodeId), "leader must be a live replica");
    r.leader = toNodeId;
  }

  synchronized RangeDescriptorProto merge(long leftRangeId, long rightRangeId) {
    calls.add("merge r" + leftRangeId + " r" + rightRangeId);
    fail("merge");
    FakeRange l = range(leftRangeId);
    FakeRange r = range(rightRangeId);
    check(l.end.equals(RangeEnd.at(r.start)), "not neighbours");
    check(new HashSet<>(l.replicas).equals(new HashSet<>(r.replicas)), "replica sets differ");
    l.data.putAll(r.data);
    l.end = r.end;
    l.generation = Math.max(l.generation, r.generation) + 1;
    ranges.remove(r.start);
    return proto(l);
  }

  private void fail(String op) {
    RuntimeException e = failNext.remove(op);
    if (e != null) {
      throw e;
    }
  }

  synchronized String leaderOf(long rangeId) {
    return range(rangeId).leader;
  }

  synchronized boolean isDead(String nodeId) {
    return dead.contains(nodeId);
  }

  CountDownLatch moveGate() {
    return moveGate;
  }

  /** The node whose record has {@code address}. */
  synchronized Optional<String> nodeAt(String address) {
    return nodes.stream().filter(n -> record(n).getAddress().equals(address)).findFirst();
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException(what);
    }
  }

  private FakeRange range(long id) {
    return ranges.values().stream().filter(r -> r.id == id).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no range " + id));
  }

  static RangeDescriptorProto proto(FakeRange r) {
    return ProtoValues.descriptor(r.descriptor(), n -> "addr-" + n);
  }

  synchronized void prepareMetaReplica(NodeRecord node, List<NodeRecord> voters) {
    calls.add("meta-replica " + node.getNodeId() + " voters " + voters.stream().map(NodeRecord::getNodeId).toList());
    fail("meta-replica");
    check(!dead.contains(node.getNodeId()), "meta replica on a dead node " + node.getNodeId());
  }
}
