package dev.rangekv.testkit.history;

/**
 * A read, scan or final state the history does not allow.
 *
 * @param kind what went wrong
 * @param key the key (or counter) concerned
 * @param detail what was seen and what was allowed
 */
public record Violation(Kind kind, String key, String detail) {

  /** The kinds of violation. */
  public enum Kind {
    /** An acknowledged write is not visible: an older state (or absence) was seen instead. */
    LOST,
    /** A definitely-failed write is visible. */
    REJECTED_VISIBLE,
    /** A value never written to this key was seen. */
    UNKNOWN_VALUE,
    /** A scan returned keys out of order, twice, or outside its bounds. */
    SCAN_ORDER,
    /** A counter's value lies outside [acknowledged, acknowledged + ambiguous] increments. */
    COUNTER
  }

  @Override
  public String toString() {
    return kind + " key=" + key + " " + detail;
  }
}
