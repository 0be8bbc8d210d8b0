package dev.rangekv.server.consensus;

/**
 * Latencies a consensus engine times itself, read at scrape time by the node's Raft meters and merged into
 * the same meters as the other adapter's timers, so a node reports one set whichever engine runs its
 * groups. Thread-safe.
 */
public interface EngineTimers {
  /** What is timed; each feeds the node's Raft meter of the same event. */
  enum Kind {
    /** A proposal, from its submission until committed and applied. */
    PROPOSAL,
    /** A synced write of the Raft log. */
    LOG_SYNC
  }

  /** Timers that never saw an event (an engine that times nothing itself). */
  EngineTimers NONE = kind -> new Reading(0, new long[0]);

  /** Events of {@code kind} timed since the engine started, and the most recent values. */
  Reading read(Kind kind);

  /**
   * One reading of a timer.
   *
   * @param count events timed since the engine started
   * @param recentNanos the latest values in nanoseconds (a bounded sample, in no order)
   */
  record Reading(long count, long[] recentNanos) {
    public Reading {
      if (count < 0) {
        throw new IllegalArgumentException("count must not be negative: " + count);
      }
      recentNanos = recentNanos.clone();
    }

    @Override
    public long[] recentNanos() {
      return recentNanos.clone();
    }
  }
}
