package dev.rangekv.testkit.history;

/** How a write ended, as its caller saw it. */
public enum Outcome {
  /** Acknowledged: it happened. */
  ACKED,
  /** Unknown: it happened at most once, maybe not at all (a timeout, an ambiguous error). */
  AMBIGUOUS,
  /** Definitely refused: it never happened and must never be seen. */
  FAILED
}
