package dev.rangekv.meta.controller;

import dev.rangekv.core.cluster.Event;
import dev.rangekv.core.cluster.Figure;
import dev.rangekv.core.cluster.SplitCause;
import dev.rangekv.core.cluster.SplitEvent;
import dev.rangekv.meta.state.MetaView;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The recent splits the planner needs (merge cooldown, split follow-up moves), read from the meta
 * event log incrementally.
 *
 * <p>Convention: a {@code "split"} event names the left half then the right half in {@code range_ids}
 * and carries its {@link SplitCause} as the figure {@code cause} with the codes of {@link #CODES}
 * (1 size, 2 load, 3 append, 4 pre-split or manual, 5 placement rule boundary). A {@code "presplit"} event names the resulting
 * ranges in key order; each neighbouring pair counts as a split with cause {@code PRESPLIT}. Without a
 * {@code cause} figure a split counts as {@code SIZE}. Not thread-safe: the tick owns it.
 */
final class SplitHistory {
  /** The {@code cause} figure's value for each split cause; stable, part of the event log's format. */
  static final Map<SplitCause, Integer> CODES = Map.of(
      SplitCause.SIZE, 1, SplitCause.LOAD, 2, SplitCause.APPEND, 3, SplitCause.PRESPLIT, 4, SplitCause.PLACEMENT, 5);

  private long lastSeq;
  private final List<SplitEvent> kept = new ArrayList<>();

  static Figure causeFigure(SplitCause cause) {
    return new Figure("cause", CODES.get(cause));
  }

  static SplitCause causeOf(Event e) {
    for (Figure f : e.figures()) {
      if (f.name().equals("cause")) {
        for (Map.Entry<SplitCause, Integer> c : CODES.entrySet()) {
          if (c.getValue() == f.value()) {
            return c.getKey();
          }
        }
      }
    }
    return SplitCause.SIZE;
  }

  /** Reads events logged since the last call and returns the splits younger than {@code cooldownMillis}. */
  List<SplitEvent> refresh(MetaView view, long nowMillis, long cooldownMillis) {
    for (Event e : view.events(lastSeq, 0, 0)) {
      lastSeq = Math.max(lastSeq, e.seq());
      List<Long> ids = e.rangeIds();
      if (e.kind().equals("split") && ids.size() >= 2 && !ids.get(0).equals(ids.get(1))) {
        kept.add(new SplitEvent(ids.get(0), ids.get(1), causeOf(e), e.atMillis()));
      } else if (e.kind().equals("presplit")) {
        for (int i = 0; i + 1 < ids.size(); i++) {
          if (!ids.get(i).equals(ids.get(i + 1))) {
            kept.add(new SplitEvent(ids.get(i), ids.get(i + 1), SplitCause.PRESPLIT, e.atMillis()));
          }
        }
      }
    }
    kept.removeIf(s -> !s.isRecent(nowMillis, cooldownMillis));
    return List.copyOf(kept);
  }

  void reset() {
    lastSeq = 0;
    kept.clear();
  }
}
