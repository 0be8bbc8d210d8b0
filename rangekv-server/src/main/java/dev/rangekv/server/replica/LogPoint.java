package dev.rangekv.server.replica;

/**
 * A position in a range's replicated log: the term and index of one entry (the applied point, an
 * installed span's point). Index 0 with term 0 is a range that applied nothing.
 */
public record LogPoint(long term, long index) {
  public LogPoint {
    if (term < 0 || index < 0) {
      throw new IllegalArgumentException("a log point is never negative: term=" + term + " index=" + index);
    }
  }
}
