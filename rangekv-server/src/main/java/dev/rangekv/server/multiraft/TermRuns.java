package dev.rangekv.server.multiraft;

import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The terms of a group's log entries as runs (the first index of each term): the term of any held entry
 * at the cost of one map entry per term, not per entry. Used on the group's stripe thread and read
 * (under its lock) from others.
 */
final class TermRuns {
  private final TreeMap<Long, Integer> starts = new TreeMap<>();
  private long first = 1;
  private long last;

  synchronized void appended(long index, int term) {
    starts.tailMap(index, true).clear();
    Map.Entry<Long, Integer> before = starts.floorEntry(index);
    if (before == null || before.getValue() != term) {
      starts.put(index, term);
    }
    last = index;
  }

  /** Entries from {@code index} on are gone (a conflicting suffix). */
  synchronized void truncatedFrom(long index) {
    starts.tailMap(index, true).clear();
    last = Math.min(last, index - 1);
  }

  /** Entries up to {@code index} are gone (a snapshot); the snapshot's own term stays known. */
  synchronized void snapshotAt(long index, int term) {
    Map.Entry<Long, Integer> keep = starts.floorEntry(index);
    starts.headMap(index, true).clear();
    starts.put(index, keep != null && index <= last ? keep.getValue() : term);
    first = index;
    last = Math.max(last, index);
  }

  synchronized OptionalLong termAt(long index) {
    if (index < first || index > last) {
      return OptionalLong.empty();
    }
    Map.Entry<Long, Integer> run = starts.floorEntry(index);
    return run == null ? OptionalLong.empty() : OptionalLong.of(run.getValue());
  }

  synchronized long lastIndex() {
    return last;
  }

  synchronized int lastTerm() {
    Map.Entry<Long, Integer> run = starts.floorEntry(last);
    return run == null ? 0 : run.getValue();
  }
}
