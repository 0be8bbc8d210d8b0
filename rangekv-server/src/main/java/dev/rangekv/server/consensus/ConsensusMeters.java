package dev.rangekv.server.consensus;

/**
 * The consensus engine's meters in the node's registry: whatever the engine times itself (proposals,
 * log appends, fsyncs) plus the apply latency the node reports here. Thread-safe.
 */
public interface ConsensusMeters {
  /** A committed entry was applied in {@code nanos}. */
  void applied(long nanos);
}
