package dev.rangekv.core.cluster;

/** Why a range was split; the rebalancer and the merge policy treat load splits specially. */
public enum SplitCause {
  /** Above max-bytes, split near the byte midpoint. */
  SIZE,
  /** Above the QPS threshold for several intervals, split at the weighted median of sampled keys. */
  LOAD,
  /** Sequential appends at the range's end: split after the last written key, leaving an empty tail. */
  APPEND,
  /** Planned before any data arrived. */
  PRESPLIT,
  /** At a placement rule's boundary, so the spans on either side can live on different nodes. */
  PLACEMENT
}
