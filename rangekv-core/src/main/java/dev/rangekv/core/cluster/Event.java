package dev.rangekv.core.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One entry of the meta range's event log: a decision taken or declined (or a cluster change), with its
 * reason and the numbers behind it.
 *
 * <p>An event is made with {@code seq} 0; the meta range assigns seqs, ascending from 1, when it logs
 * it, and stamps {@code atMillis} with its leader's clock unless the event carries its own.
 *
 * @param seq its place in the log; 0 until logged
 * @param atMillis the meta leader's wall clock when it happened; 0 = stamp when logged
 * @param kind what happened: {@code "split"}, {@code "split-declined"}, {@code "merge"}, {@code "move"},
 *     {@code "repair"}, {@code "presplit"}, {@code "alert-hot-key"}, {@code "node-dead"}, {@code "failed"}...
 * @param rangeIds the ranges it concerns (e.g. both halves of a split), possibly none
 * @param reason the rule, e.g. {@code "size above max-bytes"}; may be empty
 * @param figures the numbers behind the reason, in a readable order
 * @param detail a human summary, e.g. {@code r12 split at "user42" -> r12, r77}; may be empty
 */
public record Event(long seq, long atMillis, String kind, List<Long> rangeIds, String reason, List<Figure> figures,
    String detail) {

  public Event {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(detail, "detail");
    rangeIds = List.copyOf(rangeIds);
    figures = List.copyOf(figures);
  }

  /** An event not logged yet, whose reason and figures come from {@code why}. */
  public static Event of(String kind, List<Long> rangeIds, Explanation why, String detail, long atMillis) {
    return new Event(0, atMillis, kind, rangeIds, why.reason(), why.figures(), detail);
  }

  /** An event not logged yet, with a reason but no figures. */
  public static Event of(String kind, List<Long> rangeIds, String reason, String detail, long atMillis) {
    return new Event(0, atMillis, kind, rangeIds, reason, List.of(), detail);
  }

  /** This event as logged at {@code seq}, keeping its own time when it has one, else {@code atMillis}. */
  public Event logged(long logSeq, long atMillisIfUnset) {
    return new Event(logSeq, atMillis != 0 ? atMillis : atMillisIfUnset, kind, rangeIds, reason, figures, detail);
  }

  public Event withReason(String newReason) {
    return new Event(seq, atMillis, kind, rangeIds, newReason, figures, detail);
  }

  /** This event with {@code more} figures after its own. */
  public Event plusFigures(List<Figure> more) {
    List<Figure> all = new ArrayList<>(figures);
    all.addAll(more);
    return new Event(seq, atMillis, kind, rangeIds, reason, all, detail);
  }

  /** True when {@code rangeId} is among the ranges it concerns. */
  public boolean concerns(long rangeId) {
    return rangeIds.contains(rangeId);
  }

  /** The value of the first figure called {@code name}, if present. */
  public Optional<Double> figure(String name) {
    return figures.stream().filter(f -> f.name().equals(name)).map(Figure::value).findFirst();
  }
}
