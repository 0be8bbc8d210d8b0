package dev.rangekv.cli.demo;

import java.util.Map;
import java.util.TreeMap;

/**
 * What one phase of the demo measured: acknowledged writes, how many distinct ranges took writes per
 * second, the hottest range's share of writes (per tick, weighted by the tick's writes), and the events
 * the controller logged during the phase. Not thread-safe: the monitor thread owns it.
 */
final class PhaseStats {
  /** The event kind of the monotonic-key alert, the one phase 1 is there to show. */
  static final String MONOTONIC_ALERT = "alert-monotonic";

  private final Phase phase;
  private double seconds;
  private long writes;
  private double rangeSeconds; // sum over ticks of (distinct ranges written in the tick)
  private long hottestWrites;  // sum over ticks of the hottest range's writes in the tick
  private int ranges;
  private String nodes = "";
  private final Map<String, Integer> events = new TreeMap<>();
  private double cpuSeconds; // sum over ticks of (process CPU load x tick length)
  private long endedMillis;

  PhaseStats(Phase phase) {
    this.phase = phase;
  }

  /** One monitor tick: {@code window} maps range id to writes acknowledged in it. */
  void tick(double tickSeconds, Map<Long, Long> window) {
    seconds += tickSeconds;
    long tickWrites = 0;
    long hottest = 0;
    for (long n : window.values()) {
      tickWrites += n;
      hottest = Math.max(hottest, n);
    }
    writes += tickWrites;
    hottestWrites += hottest;
    rangeSeconds += window.size();
  }

  /** The map as the meta range last reported it: range count and per-node replicas/leaders/load. */
  void map(int rangeCount, String perNode) {
    ranges = rangeCount;
    nodes = perNode;
  }

  /** The process's CPU load over the last tick: 0 (idle) to 1 (every core busy); negative when unknown. */
  void cpu(double load, double tickSeconds) {
    cpuSeconds += Math.max(0, load) * tickSeconds;
  }

  /** The mean process CPU load over the phase, 0 to 1 of all cores. */
  double cpuLoad() {
    return seconds == 0 ? 0 : cpuSeconds / seconds;
  }

  void ended(long atMillis) {
    endedMillis = atMillis;
  }

  long endedMillis() {
    return endedMillis;
  }

  void event(String kind) {
    events.merge(kind, 1, Integer::sum);
  }

  Phase phase() {
    return phase;
  }

  double seconds() {
    return seconds;
  }

  double writesPerSecond() {
    return seconds == 0 ? 0 : writes / seconds;
  }

  /** Distinct ranges that took writes, per tick, averaged over the phase's ticks (weighted by time). */
  double rangesWrittenPerTick(double tickSeconds) {
    return seconds == 0 ? 0 : rangeSeconds * tickSeconds / seconds;
  }

  double hottestShare() {
    return writes == 0 ? 0 : (double) hottestWrites / writes;
  }

  long writes() {
    return writes;
  }

  int ranges() {
    return ranges;
  }

  String nodes() {
    return nodes;
  }

  int count(String kind) {
    return events.getOrDefault(kind, 0);
  }

  /** Alert kinds with their counts, e.g. {@code alert-monotonic x3}; "none" when there were none. */
  String alerts() {
    StringBuilder sb = new StringBuilder();
    events.forEach((kind, n) -> {
      if (kind.startsWith("alert-")) {
        sb.append(sb.length() == 0 ? "" : ", ").append(kind).append(" x").append(n);
      }
    });
    return sb.length() == 0 ? "none" : sb.toString();
  }
}
