package dev.rangekv.meta.controller;


import dev.rangekv.core.controller.TickPlan;
import dev.rangekv.core.hotspot.HotspotAlert;
import dev.rangekv.core.key.KeyText;
import dev.rangekv.core.merge.MergeDecision;
import dev.rangekv.core.placement.PlacementPlan;
import dev.rangekv.core.split.SplitDecision;
import dev.rangekv.core.cluster.Event;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The repetitive events of a tick's plan: declined splits and merges, hotspot alerts, and ranges out of
 * conformance with their placement rule that no action can fix now ({@code placement-blocked}). They come
 * back every tick while the condition lasts; {@link EventRecorder#shouldLog} thins them out. Stateless.
 */
final class PlanEvents {
  private PlanEvents() {}

  /** Declined decisions and alerts of {@code plan}, skipping ranges without current stats. */
  static List<Event> of(TickPlan plan, Set<Long> unmeasured, long nowMillis) {
    List<Event> out = new ArrayList<>();
    for (SplitDecision d : plan.splits()) {
      if (d instanceof SplitDecision.Declined x && !unmeasured.contains(x.rangeId())) {
        out.add(EventRecorder.event("split-declined", List.of(x.rangeId()), x.why(),
            "r" + x.rangeId() + " " + x.cause().name().toLowerCase(java.util.Locale.ROOT) + " split declined: "
                + x.why(), nowMillis));
      }
    }
    for (MergeDecision d : plan.merges()) {
      if (d instanceof MergeDecision.Declined x
          && !unmeasured.contains(x.leftRangeId()) && !unmeasured.contains(x.rightRangeId())) {
        out.add(EventRecorder.event("merge-declined", List.of(x.leftRangeId(), x.rightRangeId()), x.why(),
            "r" + x.leftRangeId() + " + r" + x.rightRangeId() + " merge declined: " + x.why(), nowMillis));
      }
    }
    for (PlacementPlan.Report r : plan.placement().reports()) {
      if (r.state().equals("blocked")) {
        out.add(EventRecorder.event("placement-blocked", List.of(r.rangeId()), r.why(),
            "r" + r.rangeId() + " out of conformance with " + r.rule() + ": " + r.violations(), nowMillis));
      }
    }
    for (HotspotAlert a : plan.alerts()) {
      if (a instanceof HotspotAlert.MonotonicKey m) {
        out.add(EventRecorder.event("alert-monotonic", List.of(m.rangeId()), m.why(),
            "monotonic keys under prefix " + KeyText.render(m.keyPrefix()) + " in r" + m.rangeId() + ": " + m.suggestion(),
            nowMillis));
      } else if (a instanceof HotspotAlert.HotKey h) {
        out.add(EventRecorder.event("alert-hot-key", List.of(h.rangeId()), h.why(),
            "hot key " + KeyText.render(h.key()) + " in r" + h.rangeId() + ": " + h.suggestion(), nowMillis));
      }
    }
    return out;
  }
}
