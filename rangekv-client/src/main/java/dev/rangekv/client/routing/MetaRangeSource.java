package dev.rangekv.client.routing;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.proto.GetMapResponse;
import dev.rangekv.proto.LookupRequest;
import dev.rangekv.proto.LookupResponse;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.convert.RangeKvErrors;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fills the cache from the meta range: a miss is one {@code Lookup} at the meta leader for the missed
 * span (the range holding its start and the ones after it, up to {@link #SPAN_LIMIT}, each with its
 * leader); at connect one lookup from the empty key brings the whole map when it has at most {@link
 * #CONNECT_LIMIT} ranges. The meta leader is found by following NOT_LEADER hints from a seed and
 * remembered. When the meta range cannot answer (no leader, a node down, no map yet), the call goes to
 * {@code nodes} (the nodes' own listings) instead and the meta range is left alone for {@link
 * #COOL_DOWN}, so a meta failover costs routing one fan-out, never a wait per miss. Thread-safe.
 */
public final class MetaRangeSource implements RangeSource {
  /** Ranges one miss asks for: the missed span's, up to this many. */
  public static final int SPAN_LIMIT = 64;
  /** At connect: the whole map when it has at most this many ranges, else its first this many. */
  public static final int CONNECT_LIMIT = 1024;
  /** How long misses skip the meta range after it failed to answer. */
  static final Duration COOL_DOWN = Duration.ofSeconds(1);
  private static final int MAX_HOPS = 2;

  private final List<String> seeds;
  private final NodeChannels channels;
  private final Duration timeout;
  private final NodeListRangeSource nodes;
  private final RouteStats stats;
  private final AtomicInteger nextSeed = new AtomicInteger();
  private volatile String metaLeader = "";
  private volatile long skipUntilNanos = System.nanoTime();
  private volatile long mapVersion;

  public MetaRangeSource(List<String> seeds, NodeChannels channels, Duration timeout, NodeListRangeSource nodes,
      RouteStats stats) {
    if (seeds.isEmpty()) {
      throw new IllegalArgumentException("need at least one seed address");
    }
    this.seeds = List.copyOf(seeds);
    this.channels = channels;
    this.timeout = timeout;
    this.nodes = nodes;
    this.stats = stats;
  }

  @Override
  public CompletableFuture<RangeSnapshot> fetch(RouteTable known) {
    return ask(Key.EMPTY, RangeEnd.INFINITY, CONNECT_LIMIT, known);
  }

  @Override
  public CompletableFuture<RangeSnapshot> lookup(Key start, RangeEnd end, RouteTable known) {
    return ask(start, end, SPAN_LIMIT, known);
  }

  @Override
  public Optional<RangeSource> fallback() {
    return Optional.of(nodes);
  }

  /** The map version of the last answer (0 before one): where a watch stream starts. */
  public long mapVersion() {
    return mapVersion;
  }

  /** Where to reach the meta range first: its last known leader, else the next seed. */
  public String metaAddress() {
    String leader = metaLeader;
    return leader.isEmpty() ? seeds.get(Math.floorMod(nextSeed.get(), seeds.size())) : leader;
  }

  /** Remembers the meta leader a redirect (e.g. on a watch stream) named. */
  void learnMetaLeader(String address) {
    metaLeader = address;
  }

  /** Forgets the meta leader at {@code address} (it failed) and moves on to the next seed. */
  void metaFailed(String address) {
    if (address.equals(metaLeader)) {
      metaLeader = "";
    }
    nextSeed.incrementAndGet();
  }

  private CompletableFuture<RangeSnapshot> ask(Key start, RangeEnd end, int limit, RouteTable known) {
    if (System.nanoTime() - skipUntilNanos < 0) {
      stats.fallback();
      return nodes.fetch(known).thenApply(RangeSnapshot::asFallback);
    }
    LookupRequest.Builder request = LookupRequest.newBuilder().setKey(ProtoValues.bytes(start)).setLimit(limit);
    if (end.isInfinite()) {
      request.setEndInfinite(true);
    } else {
      request.setEnd(ProtoValues.bytes(end.key()));
    }
    return call(metaAddress(), request.build(), 0).thenCompose(answer -> {
      if (answer.isPresent()) {
        return CompletableFuture.completedFuture(answer.get());
      }
      stats.fallback();
      return nodes.fetch(known).thenApply(RangeSnapshot::asFallback);
    });
  }

  /** One lookup at {@code address}, following a redirect; empty when the meta range could not answer. */
  private CompletableFuture<Optional<RangeSnapshot>> call(String address, LookupRequest request, int hops) {
    stats.metaCall();
    CompletableFuture<LookupResponse> sent;
    try {
      sent = NodeChannels.unary(channels.meta(address).withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS)
          ::lookup, request);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e); // a closed client: nothing to fall back on either
    }
    return sent.handle((response, error) -> {
      if (error == null) {
        metaLeader = address;
        mapVersion = Math.max(mapVersion, response.getMapVersion());
        return CompletableFuture.completedFuture(Optional.of(snapshot(response)));
      }
      Optional<RangeKvError> typed = RangeKvErrors.fromThrowable(error);
      String hint = typed.filter(RangeKvError::hasNotLeader).map(e -> e.getNotLeader().getLeaderAddress()).orElse("");
      if (!hint.isEmpty() && !hint.equals(address) && hops < MAX_HOPS) {
        return call(hint, request, hops + 1);
      }
      // no answer, no leader known (an election, or a cluster without a meta range), no map yet: skip
      // the meta range for a while rather than paying a failed call before every fallback
      skipUntilNanos = System.nanoTime() + COOL_DOWN.toNanos();
      metaFailed(address);
      return CompletableFuture.completedFuture(Optional.<RangeSnapshot>empty());
    }).thenCompose(f -> f);
  }

  static RangeSnapshot snapshot(LookupResponse r) {
    List<RangeDescriptorProto> all = new ArrayList<>(r.getFollowingCount() + 1);
    all.add(r.getRange());
    all.addAll(r.getFollowingList());
    return snapshot(all, r.getLeaderNodeIdsMap());
  }

  static RangeSnapshot snapshot(GetMapResponse r) {
    return snapshot(r.getRangesList(), r.getLeaderNodeIdsMap());
  }

  private static RangeSnapshot snapshot(List<RangeDescriptorProto> ranges, Map<Long, String> leaderIds) {
    List<dev.rangekv.core.rangemap.RangeDescriptor> descriptors = new ArrayList<>(ranges.size());
    Map<String, String> addresses = new HashMap<>();
    Map<Long, String> leaders = new HashMap<>();
    for (RangeDescriptorProto p : ranges) {
      descriptors.add(ProtoValues.descriptor(p));
      Failures.addAddresses(p, addresses);
      String leader = leaderIds.getOrDefault(p.getRangeId(), "");
      if (!leader.isEmpty()) {
        leaders.put(p.getRangeId(), leader);
      }
    }
    return new RangeSnapshot(descriptors, addresses, leaders);
  }
}
