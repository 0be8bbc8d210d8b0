package dev.rangekv.client.routing;

import dev.rangekv.proto.ListRangeStatsRequest;
import dev.rangekv.proto.ListRangeStatsResponse;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.convert.RangeKvErrors;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Fills the cache from the meta range: one call to its leader (found through any known node, whose
 * NOT_LEADER answer names it) returns the whole map with each range's leader. A cluster without a meta
 * range, or one whose meta leader cannot be reached, is asked through {@code fallback} (the nodes'
 * own lists) instead, so routing never depends on the meta range being up. The meta map may trail a
 * split or move by a heartbeat: a stale route costs one RANGE_MOVED, as with any stale cache.
 */
public final class MetaRangeSource implements RangeSource {
  private static final int MAX_HOPS = 3;
  private final List<String> seeds;
  private final NodeChannels channels;
  private final Duration timeout;
  private final RangeSource fallback;
  private volatile String metaLeader = "";

  public MetaRangeSource(List<String> seeds, NodeChannels channels, Duration timeout, RangeSource fallback) {
    if (seeds.isEmpty()) {
      throw new IllegalArgumentException("need at least one seed address");
    }
    this.seeds = List.copyOf(seeds);
    this.channels = channels;
    this.timeout = timeout;
    this.fallback = fallback;
  }

  @Override
  public CompletableFuture<RangeSnapshot> fetch(RouteTable known) {
    Set<String> targets = new LinkedHashSet<>();
    if (!metaLeader.isEmpty()) {
      targets.add(metaLeader);
    }
    targets.addAll(seeds);
    targets.addAll(known.addresses().values());
    return ask(new ArrayList<>(targets), 0, 0).thenCompose(snapshot -> snapshot.isPresent()
        ? CompletableFuture.completedFuture(snapshot.get())
        : fallback.fetch(known));
  }

  /** Tries {@code targets[i..]}, following hints; empty when none of them led to the meta leader. */
  private CompletableFuture<Optional<RangeSnapshot>> ask(List<String> targets, int i, int hops) {
    if (i >= targets.size()) {
      metaLeader = "";
      return CompletableFuture.completedFuture(Optional.empty());
    }
    String address = targets.get(i);
    return NodeChannels.unary(channels.meta(address).withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS)
        ::listRangeStats, ListRangeStatsRequest.getDefaultInstance())
        .handle((response, error) -> {
          if (error == null) {
            metaLeader = address;
            // an empty map: the meta range is not bootstrapped yet, the nodes know better
            return CompletableFuture.completedFuture(
                response.getRangesCount() == 0 ? Optional.<RangeSnapshot>empty() : Optional.of(snapshot(response)));
          }
          String hint = RangeKvErrors.fromThrowable(error).filter(RangeKvError::hasNotLeader)
              .map(e -> e.getNotLeader().getLeaderAddress()).orElse("");
          if (!hint.isEmpty() && !hint.equals(address) && hops < MAX_HOPS) {
            List<String> next = new ArrayList<>(targets);
            next.add(i + 1, hint);
            return ask(next, i + 1, hops + 1);
          }
          return ask(targets, i + 1, hops);
        })
        .thenCompose(f -> f);
  }

  private static RangeSnapshot snapshot(ListRangeStatsResponse response) {
    List<dev.rangekv.core.rangemap.RangeDescriptor> descriptors = new ArrayList<>();
    Map<String, String> addresses = new HashMap<>();
    Map<Long, String> leaders = new HashMap<>();
    for (RangeStatsProto r : response.getRangesList()) {
      descriptors.add(ProtoValues.descriptor(r.getRange()));
      Failures.addAddresses(r.getRange(), addresses);
      if (!r.getLeaderNodeId().isEmpty()) {
        leaders.put(r.getRange().getRangeId(), r.getLeaderNodeId());
      }
    }
    return new RangeSnapshot(descriptors, addresses, leaders);
  }
}
