package dev.rangekv.meta.state;

import dev.rangekv.core.cluster.Event;
import java.util.ArrayList;
import java.util.List;

/** The bounded event log: seq ascending from 1, oldest trimmed beyond {@code maxEvents}. Immutable. */
final class EventLog {
  private final List<Event> events;
  private final long nextSeq;
  private final int maxEvents;

  EventLog(List<Event> events, long nextSeq, int maxEvents) {
    int from = Math.max(0, events.size() - maxEvents);
    this.events = List.copyOf(events.subList(from, events.size()));
    this.nextSeq = Math.max(1, nextSeq);
    this.maxEvents = maxEvents;
  }

  static EventLog empty(int maxEvents) {
    return new EventLog(List.of(), 1, maxEvents);
  }

  List<Event> all() {
    return events;
  }

  long nextSeq() {
    return nextSeq;
  }

  /** Assigns seqs in order; keeps an event's own at_millis when set, else {@code atMillis}. */
  EventLog append(List<Event> added, long atMillis) {
    if (added.isEmpty()) {
      return this;
    }
    List<Event> out = new ArrayList<>(events.size() + added.size());
    out.addAll(events);
    long seq = nextSeq;
    for (Event e : added) {
      out.add(e.logged(seq++, atMillis));
    }
    return new EventLog(out, seq, maxEvents);
  }

  /** Events with seq above {@code afterSeq}, about {@code rangeId} unless 0, oldest first, at most {@code limit} (0 = all). */
  List<Event> after(long afterSeq, int limit, long rangeId) {
    int lo = 0;
    int hi = events.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (events.get(mid).seq() <= afterSeq) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    int max = limit <= 0 ? Integer.MAX_VALUE : limit;
    List<Event> out = new ArrayList<>();
    for (int i = lo; i < events.size() && out.size() < max; i++) {
      Event e = events.get(i);
      if (rangeId == 0 || e.concerns(rangeId)) {
        out.add(e);
      }
    }
    return out;
  }
}
