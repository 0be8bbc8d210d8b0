package dev.rangekv.testkit.linearizability;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Whether one key's operations are linearizable: the Wing-Gong depth-first search over linearization
 * points with Lowe's just-in-time linearization and memoisation of (linearized set, state), in the form
 * Porcupine uses. Calls and returns sit in one list ordered by time (a call before a return at the same
 * time: such operations overlap). Walking the list, a call whose operation the register accepts in the
 * current state is linearized (its call and return lifted out) unless that (set, state) was explored
 * before; reaching a return whose operation is not yet linearized means the last choice was wrong, so
 * it is undone. Operations that never complete have no return: the search succeeds once every
 * completed operation is linearized. Pure, not thread-safe.
 */
final class Search {
  private static final class Entry {
    final int op;
    final boolean call;
    final long time;
    Entry match; // a call's return; null when the operation never completes
    Entry prev;
    Entry next;

    Entry(int op, boolean call, long time) {
      this.op = op;
      this.call = call;
      this.time = time;
    }
  }

  private record Frame(Entry call, Optional<String> state) {}

  private record Memo(BitSet linearized, Optional<String> state) {}

  private Search() {}

  /** Whether {@code ops} (all of one key) have a linearization; gets with unknown results are ignored. */
  static boolean linearizable(List<Operation> ops) {
    List<Operation> relevant = ops.stream()
        .filter(o -> !(o.ambiguous() && o.call() instanceof Call.Get)).toList();
    Entry head = list(relevant);
    int completed = (int) relevant.stream().filter(o -> !o.ambiguous()).count();
    BitSet linearized = new BitSet(relevant.size());
    Set<Memo> explored = new HashSet<>();
    Deque<Frame> stack = new ArrayDeque<>();
    Optional<String> state = Optional.empty();
    int done = 0;
    Entry entry = head.next;
    while (done < completed) {
      if (entry == null) {
        throw new IllegalStateException("every unlinearized completed operation has a return ahead of the walk");
      }
      if (entry.call) {
        Operation op = relevant.get(entry.op);
        RegisterStep.Next next = RegisterStep.step(state, op);
        if (next.ok()) {
          linearized.set(entry.op);
          if (explored.add(new Memo((BitSet) linearized.clone(), next.state()))) {
            stack.push(new Frame(entry, state));
            state = next.state();
            done += op.ambiguous() ? 0 : 1;
            lift(entry);
            entry = head.next;
            continue;
          }
          linearized.clear(entry.op);
        }
        entry = entry.next;
      } else {
        if (stack.isEmpty()) {
          return false;
        }
        Frame f = stack.pop();
        state = f.state();
        linearized.clear(f.call().op);
        done -= relevant.get(f.call().op).ambiguous() ? 0 : 1;
        unlift(f.call());
        entry = f.call().next;
      }
    }
    return true;
  }

  /** A sentinel head followed by every call and return, by time, calls first at equal times. */
  private static Entry list(List<Operation> ops) {
    List<Entry> entries = new ArrayList<>();
    for (int i = 0; i < ops.size(); i++) {
      Operation o = ops.get(i);
      Entry call = new Entry(i, true, o.invoke());
      entries.add(call);
      if (!o.ambiguous()) {
        call.match = new Entry(i, false, o.complete());
        entries.add(call.match);
      }
    }
    entries.sort(Comparator.comparingLong((Entry e) -> e.time).thenComparing(e -> !e.call));
    Entry head = new Entry(-1, true, Long.MIN_VALUE);
    Entry last = head;
    for (Entry e : entries) {
      last.next = e;
      e.prev = last;
      last = e;
    }
    return head;
  }

  private static void lift(Entry call) {
    remove(call);
    if (call.match != null) {
      remove(call.match);
    }
  }

  private static void unlift(Entry call) {
    // the reverse of lift: the return goes back first, then the call, each between its old neighbours
    if (call.match != null) {
      restore(call.match);
    }
    restore(call);
  }

  private static void remove(Entry e) {
    e.prev.next = e.next;
    if (e.next != null) {
      e.next.prev = e.prev;
    }
  }

  private static void restore(Entry e) {
    e.prev.next = e;
    if (e.next != null) {
      e.next.prev = e;
    }
  }
}
