package dev.rangekv.core.hotspot;

import java.util.ArrayList;
import java.util.List;

/**
 * The last ticks the monotonic-key detector observed: for each, whether the hottest range was the one
 * at the end of the written keys. Immutable; oldest first, at most the window's length.
 *
 * @param tailWasHottest one entry per observed tick
 */
public record MonotonicWindow(List<Boolean> tailWasHottest) {
  /** No observations yet. */
  public static final MonotonicWindow EMPTY = new MonotonicWindow(List.of());

  public MonotonicWindow {
    tailWasHottest = List.copyOf(tailWasHottest);
  }

  /** This window plus {@code observation}, keeping the newest {@code length} entries. */
  public MonotonicWindow push(boolean observation, int length) {
    List<Boolean> next = new ArrayList<>(tailWasHottest);
    next.add(observation);
    while (next.size() > length) {
      next.remove(0);
    }
    return new MonotonicWindow(next);
  }

  /** Ticks in the window where the tail was hottest. */
  public int tailHotTicks() {
    return (int) tailWasHottest.stream().filter(b -> b).count();
  }
}
