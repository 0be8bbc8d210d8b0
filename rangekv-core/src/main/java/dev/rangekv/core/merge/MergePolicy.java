package dev.rangekv.core.merge;

import dev.rangekv.core.cluster.ClusterSnapshot;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.cluster.SplitEvent;
import dev.rangekv.core.key.RangeEnd;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Merge (seed 000 "Merges and rebalancing", seed 002 hysteresis): neighbours both under {@code
 * range.min-bytes} and both under {@code merge.qps}, together under {@code range.max-bytes}, neither
 * split within {@code merge.split-cooldown} (so a load split is never merged back while its halves
 * look small), with no move in flight and every replica on a live node. Each range takes part in at
 * most one decision per tick, scanning left to right. Stateless.
 */
public final class MergePolicy {
  private MergePolicy() {}

  /** Decisions for every neighbouring pair both under min-bytes; ranges in {@code busy} are skipped. */
  public static List<MergeDecision> evaluate(ClusterSnapshot s, ControllerConfig config, long nowMillis,
      Set<Long> busy) {
    Set<String> live = new HashSet<>(s.liveNodeIds(nowMillis, config.deadNodeTimeoutMillis()));
    Set<Long> moving = s.movingRangeIds();
    List<MergeDecision> out = new ArrayList<>();
    List<RangeStats> ranges = s.ranges();
    for (int i = 0; i + 1 < ranges.size(); i++) {
      RangeStats a = ranges.get(i);
      RangeStats b = ranges.get(i + 1);
      if (!a.range().end().equals(RangeEnd.at(b.range().start()))
          || a.bytes() >= config.minBytes() || b.bytes() >= config.minBytes()
          || busy.contains(a.rangeId()) || busy.contains(b.rangeId())) {
        continue;
      }
      MergeDecision d = decide(s, a, b, config, nowMillis, live, moving);
      out.add(d);
      if (!(d instanceof MergeDecision.Declined)) {
        i++; // b is taken by this decision
      }
    }
    return out;
  }

  public static List<MergeDecision> evaluate(ClusterSnapshot s, ControllerConfig config, long nowMillis) {
    return evaluate(s, config, nowMillis, Set.of());
  }

  private static MergeDecision decide(ClusterSnapshot s, RangeStats a, RangeStats b, ControllerConfig config,
      long now, Set<String> live, Set<Long> moving) {
    long l = a.rangeId();
    long r = b.rangeId();
    long combined = a.bytes() + b.bytes();
    if (combined >= config.maxBytes()) {
      return new MergeDecision.Declined(l, r, Explanation.of("merged range would reach max-bytes")
          .with("combinedBytes", combined).with("maxBytes", config.maxBytes()).build());
    }
    if (a.qps() >= config.mergeQps() || b.qps() >= config.mergeQps()) {
      return new MergeDecision.Declined(l, r, Explanation.of("not cold: load at or above merge.qps")
          .with("leftQps", a.qps()).with("rightQps", b.qps()).with("mergeQps", config.mergeQps()).build());
    }
    Optional<SplitEvent> split = s.recentSplit(l, now, config.splitCooldownMillis())
        .or(() -> s.recentSplit(r, now, config.splitCooldownMillis()));
    if (split.isPresent()) {
      return new MergeDecision.Declined(l, r, Explanation.of("split within merge.split-cooldown ("
              + split.get().cause().name().toLowerCase(java.util.Locale.ROOT) + " split)")
          .with("splitAgoMillis", now - split.get().atMillis())
          .with("cooldownMillis", config.splitCooldownMillis()).build());
    }
    if (moving.contains(l) || moving.contains(r)) {
      return new MergeDecision.Declined(l, r, Explanation.of("a move of either range is in flight").build());
    }
    if (!live.containsAll(a.range().replicas()) || !live.containsAll(b.range().replicas())) {
      return new MergeDecision.Declined(l, r, Explanation.of("a replica is on a dead node: repair first").build());
    }
    Explanation.Builder why = Explanation.of("small and cold neighbours")
        .with("leftBytes", a.bytes()).with("rightBytes", b.bytes()).with("minBytes", config.minBytes())
        .with("leftQps", a.qps()).with("rightQps", b.qps()).with("mergeQps", config.mergeQps());
    TreeSet<String> ra = new TreeSet<>(a.range().replicas());
    TreeSet<String> rb = new TreeSet<>(b.range().replicas());
    if (ra.equals(rb)) {
      return new MergeDecision.Merge(l, a.range().generation(), r, b.range().generation(), why.build());
    }
    if (ra.size() != rb.size()) {
      return new MergeDecision.Declined(l, r, Explanation.of("replica counts differ: wait for repair")
          .with("leftReplicas", ra.size()).with("rightReplicas", rb.size()).build());
    }
    // Move the smaller range's replicas onto the other's nodes: that set already obeys the placement rules.
    boolean moveRight = b.bytes() <= a.bytes();
    RangeStats mover = moveRight ? b : a;
    TreeSet<String> from = new TreeSet<>(moveRight ? rb : ra);
    TreeSet<String> to = new TreeSet<>(moveRight ? ra : rb);
    from.removeAll(moveRight ? ra : rb);
    to.removeAll(moveRight ? rb : ra);
    List<Move> moves = new ArrayList<>();
    Explanation moveWhy = Explanation.of("co-locate for merge").with("leftRangeId", l).with("rightRangeId", r)
        .build();
    var toIt = to.iterator();
    for (String f : from) {
      moves.add(Move.of(mover.rangeId(), f, toIt.next(), moveWhy));
    }
    return new MergeDecision.CoLocateFirst(l, r, moves, why.build());
  }
}
