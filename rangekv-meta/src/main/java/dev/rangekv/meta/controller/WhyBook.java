package dev.rangekv.meta.controller;


import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.Event;
import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.LeaderTransfer;
import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.controller.TickPlan;
import dev.rangekv.core.merge.MergeDecision;
import dev.rangekv.core.placement.PlacementPlan;
import dev.rangekv.core.rebalance.RepairPlan;
import dev.rangekv.core.split.SplitDecision;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * The controller's latest evaluation of each policy (split, merge, move) for each range, as
 * {@link Event}s with the reason and the numbers behind it: the answer to "why"
 * (or why not) for a range. Kept in memory on the meta leader; rewritten every tick. Thread-safe.
 */
public final class WhyBook {
  /** The policies evaluated for every range each tick. */
  public static final List<String> POLICIES = List.of("split", "merge", "move", "placement");

  private final Map<Long, Map<String, Event>> byRange = new ConcurrentHashMap<>();

  void put(long rangeId, String policy, Event evaluation) {
    byRange.computeIfAbsent(rangeId, id -> new ConcurrentHashMap<>()).put(policy, evaluation);
  }

  /** The latest evaluation of each policy for {@code rangeId}, newest first (empty when unknown). */
  public List<Event> decisions(long rangeId) {
    Map<String, Event> m = byRange.get(rangeId);
    if (m == null) {
      return List.of();
    }
    List<Map.Entry<String, Event>> entries = new ArrayList<>(m.entrySet());
    entries.sort(Comparator.comparingLong((Map.Entry<String, Event> e) -> e.getValue().atMillis())
        .reversed().thenComparing(e -> POLICIES.indexOf(e.getKey())));
    return entries.stream().map(Map.Entry::getValue).toList();
  }

  /** Rewrites the evaluations of every range in {@code built} from this tick's {@code plan}. */
  void record(TickPlan plan, SnapshotBuilder.Built built, ControllerConfig config, long now) {
    Explanation unmeasured = Explanation.of("no current stats from the range's leader yet: no split, merge or"
        + " rebalancing until its next heartbeat").build();
    for (SplitDecision d : plan.splits()) {
      String kind = d instanceof SplitDecision.Declined ? "split-declined"
          : d instanceof SplitDecision.NoSplit ? "no-split" : "split";
      boolean known = !built.unmeasured().contains(d.rangeId());
      put(d.rangeId(), "split", EventRecorder.event(known ? kind : "no-split", List.of(d.rangeId()),
          known ? d.why() : unmeasured, "", now));
    }
    Set<Long> inMerge = new HashSet<>();
    for (MergeDecision d : plan.merges()) {
      String kind = d instanceof MergeDecision.Declined ? "merge-declined" : "merge";
      String detail = d instanceof MergeDecision.CoLocateFirst c ? "co-locate first: " + c.moves() : "";
      Event e = EventRecorder.event(kind, List.of(d.leftRangeId(), d.rightRangeId()), d.why(), detail, now);
      put(d.leftRangeId(), "merge", e);
      put(d.rightRangeId(), "merge", e);
      inMerge.add(d.leftRangeId());
      inMerge.add(d.rightRangeId());
    }
    Set<Long> inMove = new HashSet<>();
    Set<Long> ruled = new HashSet<>();
    for (PlacementPlan.Report r : plan.placement().reports()) {
      ruled.add(r.rangeId());
      String detail = "rule " + r.rule() + (r.conforms() ? ": conforms" : ": " + r.state() + ", violations: "
          + r.violations());
      put(r.rangeId(), "placement", EventRecorder.event(r.conforms() ? "placement" : "placement-" + r.state(),
          List.of(r.rangeId()), r.why(), detail, now));
    }
    for (Move m : plan.placement().moves()) {
      inMove.add(m.rangeId());
      put(m.rangeId(), "move", EventRecorder.event("move", List.of(m.rangeId()), m.why(), m.toString(), now));
    }
    for (LeaderTransfer t : plan.placement().leaderTransfers()) {
      inMove.add(t.rangeId());
      put(t.rangeId(), "move", EventRecorder.event("leader-transfer", List.of(t.rangeId()), t.why(),
          "r" + t.rangeId() + " leader " + t.fromNode() + " -> " + t.toNode(), now));
    }
    for (Move m : plan.repair().moves()) {
      inMove.add(m.rangeId());
      put(m.rangeId(), "move", EventRecorder.event("repair", List.of(m.rangeId()), m.why(), m.toString(), now));
    }
    for (RepairPlan.Blocked b : plan.repair().blocked()) {
      inMove.add(b.rangeId());
      put(b.rangeId(), "move", EventRecorder.event("repair-blocked", List.of(b.rangeId()), b.why(), "", now));
    }
    for (Move m : plan.rebalance().moves()) {
      if (inMove.add(m.rangeId())) {
        put(m.rangeId(), "move", EventRecorder.event("move", List.of(m.rangeId()), m.why(), m.toString(), now));
      }
    }
    for (LeaderTransfer t : plan.rebalance().leaderTransfers()) {
      if (inMove.add(t.rangeId())) {
        put(t.rangeId(), "move", EventRecorder.event("leader-transfer", List.of(t.rangeId()), t.why(),
            "r" + t.rangeId() + " leader " + t.fromNode() + " -> " + t.toNode(), now));
      }
    }
    for (RangeStats r : built.snapshot().ranges()) {
      if (!inMerge.contains(r.rangeId())) {
        put(r.rangeId(), "merge", EventRecorder.event("no-merge", List.of(r.rangeId()),
            Explanation.of("no merge candidate: this range or a neighbour at or above min-bytes, or busy")
                .with("bytes", r.bytes()).with("minBytes", config.minBytes()).build(), "", now));
      }
      if (!ruled.contains(r.rangeId())) {
        remove(r.rangeId(), "placement");
      }
      if (!inMove.contains(r.rangeId())) {
        put(r.rangeId(), "move", EventRecorder.event("no-move", List.of(r.rangeId()), plan.rebalance().why(), "", now));
      }
    }
    retainRanges(built.snapshot().ranges().stream().map(RangeStats::rangeId).collect(Collectors.toSet()));
  }

  private void remove(long rangeId, String policy) {
    Map<String, Event> m = byRange.get(rangeId);
    if (m != null) {
      m.remove(policy);
    }
  }

  void retainRanges(Set<Long> rangeIds) {
    byRange.keySet().retainAll(rangeIds);
  }

  void clear() {
    byRange.clear();
  }
}
