package dev.rangekv.meta.controller;


import dev.rangekv.core.cluster.Event;
import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.meta.state.MetaChange;
import dev.rangekv.meta.state.MetaGroup;
import dev.rangekv.meta.state.MetaView;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * Writes the controller's events to the meta range's log, and de-duplicates the repetitive ones:
 * declined decisions and alerts, re-evaluated every tick, are logged again only when their reason
 * changes or after {@link #QUIET_MILLIS} of silence, so the log is not flooded.
 *
 * <p>Thread-safe: steps append from executor threads, the tick from its own.
 */
final class EventRecorder {
  /** A repeated declined decision or alert is logged at most once per this period unless its reason changes. */
  static final long QUIET_MILLIS = 60_000;

  private final MetaGroup meta;
  private final LongSupplier clock;
  private final Map<String, Logged> lastLogged = new HashMap<>();

  private record Logged(String reason, long atMillis) {}

  EventRecorder(MetaGroup meta, LongSupplier clock) {
    this.meta = meta;
    this.clock = clock;
  }

  /** An event whose reason and figures come from a core {@link Explanation}. */
  static Event event(String kind, List<Long> rangeIds, Explanation why, String detail, long atMillis) {
    return Event.of(kind, rangeIds, why, detail, atMillis);
  }

  /** Proposes {@code events} (stamped with the leader's clock); completes when applied. */
  CompletableFuture<MetaView> append(List<Event> events) {
    return meta.propose(new MetaChange.AppendEvents(events, clock.getAsLong()));
  }

  /**
   * True when a repetitive event (declined decision, alert) should be logged now: first time, reason
   * changed, or quiet for {@link #QUIET_MILLIS}. Records it as logged when true.
   */
  synchronized boolean shouldLog(Event e, long nowMillis) {
    String key = e.kind() + e.rangeIds();
    Logged last = lastLogged.get(key);
    if (last != null && last.reason().equals(e.reason()) && nowMillis - last.atMillis() < QUIET_MILLIS) {
      return false;
    }
    lastLogged.put(key, new Logged(e.reason(), nowMillis));
    return true;
  }

  /** Forgets de-duplication entries past their quiet period, keeping the table bounded. */
  synchronized void prune(long nowMillis) {
    for (Iterator<Logged> it = lastLogged.values().iterator(); it.hasNext(); ) {
      if (nowMillis - it.next().atMillis() >= QUIET_MILLIS) {
        it.remove();
      }
    }
  }

  synchronized void clear() {
    lastLogged.clear();
  }
}
