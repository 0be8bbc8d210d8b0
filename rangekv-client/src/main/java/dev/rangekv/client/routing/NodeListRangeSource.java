package dev.rangekv.client.routing;

import dev.rangekv.client.UnavailableException;
import dev.rangekv.proto.ListRangesRequest;
import dev.rangekv.proto.ListRangesResponse;
import dev.rangekv.proto.ReplicaStatus;
import dev.rangekv.proto.convert.ProtoValues;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Fills the cache from the nodes themselves (the fallback when the meta range is unavailable or trails
 * them, and the source of a cluster without one): asks every seed and every node
 * the cache already knows for {@code ListRanges}, in parallel, and merges whatever answers arrive
 * (the cache folds them by generation). Node addresses are learnt from the descriptors. Fails with
 * {@link UnavailableException} only when no node answers.
 */
public final class NodeListRangeSource implements RangeSource {
  private final List<String> seeds;
  private final NodeChannels channels;
  private final Duration timeout;
  private final RouteStats stats;

  public NodeListRangeSource(List<String> seeds, NodeChannels channels, Duration timeout) {
    this(seeds, channels, timeout, new RouteStats());
  }

  /** As above, counting the RPCs it sends in {@code stats}. */
  public NodeListRangeSource(List<String> seeds, NodeChannels channels, Duration timeout, RouteStats stats) {
    if (seeds.isEmpty()) {
      throw new IllegalArgumentException("need at least one seed address");
    }
    this.seeds = List.copyOf(seeds);
    this.channels = channels;
    this.timeout = timeout;
    this.stats = stats;
  }

  @Override
  public CompletableFuture<RangeSnapshot> fetch(RouteTable known) {
    Set<String> targets = new LinkedHashSet<>(seeds);
    targets.addAll(known.addresses().values());
    List<CompletableFuture<ListRangesResponse>> calls = new ArrayList<>();
    for (String address : targets) {
      calls.add(NodeChannels.unary(
          channels.admin(address).withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS)::listRanges,
          ListRangesRequest.getDefaultInstance()));
    }
    stats.nodeListCalls(calls.size());
    CompletableFuture<?>[] all = calls.toArray(new CompletableFuture<?>[0]);
    return CompletableFuture.allOf(all).handle((ignored, error) -> merge(targets, calls));
  }

  private static RangeSnapshot merge(Set<String> targets, List<CompletableFuture<ListRangesResponse>> calls) {
    List<dev.rangekv.core.rangemap.RangeDescriptor> descriptors = new ArrayList<>();
    Map<String, String> addresses = new HashMap<>();
    Map<Long, String> leaders = new HashMap<>();
    Map<Long, Long> leaderGeneration = new HashMap<>();
    Throwable last = null;
    int answered = 0;
    for (CompletableFuture<ListRangesResponse> call : calls) {
      if (call.isCompletedExceptionally()) {
        last = call.handle((v, e) -> e).join();
        continue;
      }
      answered++;
      for (ReplicaStatus s : call.join().getReplicasList()) {
        descriptors.add(ProtoValues.descriptor(s.getRange()));
        Failures.addAddresses(s.getRange(), addresses);
        long gen = s.getRange().getGeneration();
        // the freshest replica's view of the leader wins
        if (!s.getLeaderNodeId().isEmpty() && gen >= leaderGeneration.getOrDefault(s.getRange().getRangeId(), -1L)) {
          leaders.put(s.getRange().getRangeId(), s.getLeaderNodeId());
          leaderGeneration.put(s.getRange().getRangeId(), gen);
        }
      }
    }
    if (answered == 0) {
      throw new UnavailableException("no node answered ListRanges: addresses=" + targets, last);
    }
    return new RangeSnapshot(descriptors, addresses, leaders);
  }
}
