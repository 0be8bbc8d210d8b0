package dev.rangekv.meta.state;

import dev.rangekv.proto.EventProto;
import java.util.ArrayList;
import java.util.List;

/** The bounded event log: seq ascending from 1, oldest trimmed beyond {@code maxEvents}. Immutable. */
final class EventLog {
  private final List<EventProto> events;
  private final long nextSeq;
  private final int maxEvents;

  EventLog(List<EventProto> events, long nextSeq, int maxEvents) {
    int from = Math.max(0, events.size() - maxEvents);
    this.events = List.copyOf(events.subList(from, events.size()));
    this.nextSeq = Math.max(1, nextSeq);
    this.maxEvents = maxEvents;
  }

  static EventLog empty(int maxEvents) {
    return new EventLog(List.of(), 1, maxEvents);
  }

  List<EventProto> all() {
    return events;
  }

  long nextSeq() {
    return nextSeq;
  }

  /** Assigns seqs in order; keeps an event's own at_millis when set, else {@code atMillis}. */
  EventLog append(List<EventProto> added, long atMillis) {
    if (added.isEmpty()) {
      return this;
    }
    List<EventProto> out = new ArrayList<>(events.size() + added.size());
    out.addAll(events);
    long seq = nextSeq;
    for (EventProto e : added) {
      out.add(e.toBuilder().setSeq(seq++).setAtMillis(e.getAtMillis() != 0 ? e.getAtMillis() : atMillis).build());
    }
    return new EventLog(out, seq, maxEvents);
  }

  /** Events with seq above {@code afterSeq}, about {@code rangeId} unless 0, oldest first, at most {@code limit} (0 = all). */
  List<EventProto> after(long afterSeq, int limit, long rangeId) {
    int lo = 0;
    int hi = events.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (events.get(mid).getSeq() <= afterSeq) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    int max = limit <= 0 ? Integer.MAX_VALUE : limit;
    List<EventProto> out = new ArrayList<>();
    for (int i = lo; i < events.size() && out.size() < max; i++) {
      EventProto e = events.get(i);
      if (rangeId == 0 || e.getRangeIdsList().contains(rangeId)) {
        out.add(e);
      }
    }
    return out;
  }
}
