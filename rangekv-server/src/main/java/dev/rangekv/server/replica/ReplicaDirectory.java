package dev.rangekv.server.replica;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.proto.replica.RaftReplicaList;
import dev.rangekv.server.split.SplitApplier;
import dev.rangekv.server.split.SplitApplier.SplitOutcome;
import dev.rangekv.storage.NodeStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.LongConsumer;

/**
 * The node's directory of live range replicas (one per range group this node runs) and of node
 * addresses, learnt from the replica records in the store. Also the {@link ReplicaHost} the state
 * machines call back. Thread-safe.
 */
public final class ReplicaDirectory implements ReplicaHost {
  private final NodeStore store;
  private final Map<Long, RangeReplica> replicas = new ConcurrentHashMap<>();
  private final Map<String, String> clientAddresses = new ConcurrentHashMap<>();
  private volatile String nodeId = "";
  private volatile LongConsumer childRecorded = id -> {};
  private volatile BiFunction<Long, String, CompletableFuture<StagedSpan>> spanFetcher =
      (id, leader) -> ReplicaHost.super.fetchSpan(id, leader);
  /** Ranges this node held and gave up (moved away, merged): what to answer requests for them with. */
  private final Map<Long, List<RangeDescriptorProto>> successors = new ConcurrentHashMap<>();

  public ReplicaDirectory(NodeStore store) {
    this.store = store;
  }

  private volatile BiConsumer<Key, RangeEnd> spanDeleted = (lo, hi) -> {};

  /** Where applied range deletes are reported, to have their spans compacted. */
  public void onSpanDeleted(BiConsumer<Key, RangeEnd> action) {
    this.spanDeleted = action;
  }

  @Override
  public void spanDeleted(Key lo, RangeEnd hi) {
    spanDeleted.accept(lo, hi);
  }

  private volatile LongConsumer applyTimes = nanos -> {};

  /** Where the time each applied entry took is reported (the node's apply meter, when metrics are on). */
  public void onApplied(LongConsumer action) {
    this.applyTimes = action;
  }

  @Override
  public void applied(long nanos) {
    applyTimes.accept(nanos);
  }

  private volatile DormancyListener dormancyApplied = (rangeId, dormant, index) -> {};

  /** What the node does when a replica applied a dormancy entry. */
  @FunctionalInterface
  public interface DormancyListener {
    void applied(long rangeId, boolean dormant, long index);
  }

  /** Where applied dormancy entries are reported (the node's dormancy shell closes the group). */
  public void onDormancyApplied(DormancyListener action) {
    this.dormancyApplied = action;
  }

  @Override
  public void dormancyApplied(long rangeId, boolean dormant, long index) {
    dormancyApplied.applied(rangeId, dormant, index);
  }

  /** Where split children go to get their Raft group created (set once the Raft server exists). */
  public void onChildRecorded(LongConsumer action) {
    this.childRecorded = action;
  }

  /** Names this node (set once at start). */
  public void identify(String id) {
    this.nodeId = id;
  }

  @Override
  public String nodeId() {
    return nodeId;
  }

  /** How replicas fetch span snapshots (set once the node's gRPC channels exist). */
  public void onFetchSpan(BiFunction<Long, String, CompletableFuture<StagedSpan>> fetcher) {
    this.spanFetcher = fetcher;
  }

  @Override
  public CompletableFuture<StagedSpan> fetchSpan(long rangeId, String leaderNodeId) {
    return spanFetcher.apply(rangeId, leaderNodeId);
  }

  /** Remembers the client addresses of {@code replicas}' nodes. */
  public void learnAddresses(List<RaftReplica> replicas) {
    replicas.forEach(r -> clientAddresses.put(r.getNodeId(), r.getClientAddress()));
  }

  /**
   * This node no longer holds {@code rangeId} (called before its group is removed, so the reconciler
   * never re-creates it from a record about to be deleted): requests for it are answered with
   * {@code current} (RANGE_MOVED), or RANGE_NOT_FOUND when empty.
   */
  public void gaveUp(long rangeId, List<RangeDescriptorProto> current) {
    successors.put(rangeId, List.copyOf(current));
  }

  /** True when this node gave {@code rangeId} up and has not been asked to hold it again. */
  public boolean isGivenUp(long rangeId) {
    return successors.containsKey(rangeId);
  }

  /** A range re-created on this node (a replica added back) is no longer given up. */
  public void holdsAgain(long rangeId) {
    successors.remove(rangeId);
  }

  /** The descriptors to answer with for a range this node gave up; empty when it never held it. */
  public List<RangeDescriptorProto> successorsOf(long rangeId) {
    return successors.getOrDefault(rangeId, List.of());
  }

  /** A new replica of {@code rangeId} on this node, for the engine opening its group. */
  public RangeReplica newReplica(long rangeId) {
    return new RangeReplica(rangeId, store, this);
  }

  public Optional<RangeReplica> replica(long rangeId) {
    return Optional.ofNullable(replicas.get(rangeId));
  }

  public Collection<RangeReplica> replicas() {
    return List.copyOf(replicas.values());
  }

  /** The replicas of {@code rangeId} as recorded in this node's store. */
  public List<RaftReplica> replicaRecord(long rangeId) {
    Optional<byte[]> bytes = store.localGet(rangeId, SplitApplier.REPLICAS_FIELD);
    if (bytes.isEmpty()) {
      return List.of();
    }
    try {
      List<RaftReplica> list = RaftReplicaList.parseFrom(bytes.get()).getReplicasList();
      list.forEach(r -> clientAddresses.put(r.getNodeId(), r.getClientAddress()));
      return list;
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("corrupt replica record rangeId=" + rangeId, e);
    }
  }

  /** The client addresses of every node this node has seen in replica records. */
  public java.util.Collection<String> knownClientAddresses() {
    return List.copyOf(clientAddresses.values());
  }

  /** The client address of {@code nodeId}, or "" when this node has never seen it. */
  public String addressOf(String nodeId) {
    return clientAddresses.getOrDefault(nodeId, "");
  }

  public RangeDescriptorProto toProto(RangeDescriptor d) {
    return ProtoValues.descriptor(d, this::addressOf);
  }

  @Override
  public void register(RangeReplica replica) {
    replicaRecord(replica.rangeId());
    replicas.put(replica.rangeId(), replica);
  }

  @Override
  public void unregister(RangeReplica replica) {
    replicas.remove(replica.rangeId(), replica);
  }

  @Override
  public void splitApplied(SplitOutcome outcome) {
    outcome.peers().forEach(r -> clientAddresses.put(r.getNodeId(), r.getClientAddress()));
    long child = outcome.child().rangeId();
    RangeReplica pending = replicas.get(child);
    if (pending != null) {
      pending.learn();
    }
    childRecorded.accept(child);
  }

  @Override
  public List<RangeDescriptorProto> movedDescriptors(RangeDescriptor current) {
    List<RangeDescriptorProto> out = new ArrayList<>();
    out.add(toProto(current));
    for (long child : SplitApplier.children(store, current.rangeId())) {
      store.rangeState(child).ifPresent(s -> out.add(toProto(s.descriptor())));
    }
    return out;
  }
}
