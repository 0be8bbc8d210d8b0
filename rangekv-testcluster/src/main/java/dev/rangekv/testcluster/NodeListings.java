package dev.rangekv.testcluster;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.ListRangesRequest;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.ReplicaStatus;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What a cluster's nodes say of their own replicas ({@code ListRanges} on each), and what follows from
 * it: the newest tiling, the leader of the range holding a key. Cluster state has no event to wait on,
 * so the waits here poll (bounded). Thread-safe.
 */
public final class NodeListings {
  private static final Duration POLL = Duration.ofMillis(20);

  private final NodeStubs stubs;
  private final Supplier<List<String>> addresses;

  /** Lists the nodes at {@code addresses} (read at each listing: e.g. only the running ones) through {@code stubs}. */
  public NodeListings(NodeStubs stubs, Supplier<List<String>> addresses) {
    this.stubs = stubs;
    this.addresses = addresses;
  }

  /**
   * Each node's replicas by its own account, by address in the order given; a node that does not answer
   * (stopped, starting, stopping) is left out: the others describe its ranges too.
   */
  public Map<String, List<ReplicaStatus>> replicasByNode() {
    Map<String, List<ReplicaStatus>> out = new LinkedHashMap<>();
    for (String address : addresses.get()) {
      try {
        out.put(address, stubs.kv(address).listRanges(ListRangesRequest.getDefaultInstance()).getReplicasList());
      } catch (RuntimeException e) {
        // a node that does not answer: see above
      }
    }
    return out;
  }

  /** The newest tiling the nodes report: {@link #newestTiling(Map)} of {@link #replicasByNode()}. */
  public List<RangeDescriptorProto> newestTiling() {
    return newestTiling(replicasByNode());
  }

  /**
   * The newest generation of each range, then, newest first, every descriptor that overlaps none already
   * taken (a lagging replica's older span loses), in key order. A span nobody reported is a gap.
   */
  public static List<RangeDescriptorProto> newestTiling(Map<String, List<ReplicaStatus>> replicasByNode) {
    Map<Long, RangeDescriptorProto> newest = new HashMap<>();
    for (List<ReplicaStatus> replicas : replicasByNode.values()) {
      for (ReplicaStatus s : replicas) {
        newest.merge(s.getRange().getRangeId(), s.getRange(), (a, b) -> a.getGeneration() >= b.getGeneration() ? a : b);
      }
    }
    List<RangeDescriptorProto> byGeneration = new ArrayList<>(newest.values());
    byGeneration.sort(Comparator.comparingLong(RangeDescriptorProto::getGeneration).reversed());
    List<RangeDescriptor> taken = new ArrayList<>();
    List<RangeDescriptorProto> tiling = new ArrayList<>();
    for (RangeDescriptorProto p : byGeneration) {
      RangeDescriptor d = ProtoValues.descriptor(p);
      if (taken.stream().noneMatch(t -> t.overlaps(d.start(), d.end()))) {
        taken.add(d);
        tiling.add(p);
      }
    }
    tiling.sort(Comparator.comparing(p -> ProtoValues.descriptor(p).start()));
    return List.copyOf(tiling);
  }

  /** The address of the node that leads the range holding {@code key} by its own account, if one does. */
  public Optional<String> leaderOf(Key key) {
    for (Map.Entry<String, List<ReplicaStatus>> node : replicasByNode().entrySet()) {
      for (ReplicaStatus s : node.getValue()) {
        if (s.getLeader() && ProtoValues.descriptor(s.getRange()).contains(key)) {
          return Optional.of(node.getKey());
        }
      }
    }
    return Optional.empty();
  }

  /** Waits (bounded) for a node to lead the range holding {@code key}; returns its address. */
  public String awaitLeader(Key key, Duration timeout) {
    return Await.value(timeout, POLL, "a leader for the range of " + key, () -> leaderOf(key));
  }
}
