package dev.rangekv.testkit.linearizability;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Shrinks one key's failing history to a small witness by steps that are each sound: if what a step
 * leaves had a linearization, so would what it was given. So the witness fails only because the whole
 * history does (merely dropping operations could not promise that: without the delete that explains a
 * read of absence, a history fails for a reason the real one does not have). Pure.
 *
 * <ol>
 *   <li>Cut at time T, the earliest at which the history fails: operations invoked after T go, those
 *       still running at T become ambiguous (their results unknown). Every linearization of the whole
 *       history yields one of the cut, so the failure is monotone in T: a binary search finds it.
 *   <li>Drop reads (gets, refused compare-and-sets) while it still fails: a read changes no state.
 *   <li>Drop a completed put or delete overwritten before any read: a completed put or delete invoked
 *       after it completed, and completed before every remaining operation that observes the state (a
 *       get or compare-and-set) was invoked. Nothing can have seen it; a linearization without it takes
 *       it back just after the last operation that completed before it was invoked. Writes of values a
 *       remaining read saw stay, to show where the value came from.
 * </ol>
 * Steps 2 and 3 repeat until neither drops anything.
 */
final class Shrink {
  private Shrink() {}

  static List<Operation> witness(List<Operation> failing) {
    List<Operation> current = cut(failing);
    int before;
    do {
      before = current.size();
      current = dropReads(current);
      current = dropOverwritten(current);
    } while (current.size() < before);
    return current;
  }

  /** The history cut at the earliest completion time at which it fails. */
  static List<Operation> cut(List<Operation> ops) {
    List<Long> times = ops.stream().filter(o -> !o.ambiguous()).map(Operation::complete).sorted().distinct().toList();
    int lo = 0;
    int hi = times.size() - 1; // the whole history fails: so does its cut at the last completion
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (Search.linearizable(cutAt(ops, times.get(mid)))) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return times.isEmpty() ? ops : cutAt(ops, times.get(lo));
  }

  static List<Operation> cutAt(List<Operation> ops, long t) {
    List<Operation> out = new ArrayList<>();
    for (Operation o : ops) {
      if (o.invoke() > t) {
        continue;
      }
      if (o.complete() > t && !o.ambiguous()) {
        o = new Operation(o.id(), o.client(), o.key(), o.call(), new Result.Unknown(), o.invoke(), Operation.NEVER);
      }
      out.add(o);
    }
    return out;
  }

  private static List<Operation> dropReads(List<Operation> ops) {
    List<Operation> current = ops;
    for (int i = current.size() - 1; i >= 0; i--) {
      Operation o = current.get(i);
      boolean read = o.call() instanceof Call.Get || o.result() instanceof Result.Refused;
      if (read && current.size() > 1) {
        List<Operation> candidate = new ArrayList<>(current);
        candidate.remove(i);
        if (!Search.linearizable(candidate)) {
          current = candidate;
        }
      }
    }
    return current;
  }

  private static List<Operation> dropOverwritten(List<Operation> ops) {
    List<Operation> current = new ArrayList<>(ops);
    boolean dropped = true;
    while (dropped) {
      dropped = false;
      long firstObserver = current.stream().filter(Shrink::observes).mapToLong(Operation::invoke).min()
          .orElse(Long.MAX_VALUE);
      Set<String> seen = seenValues(current);
      for (Operation w : current) {
        if (blind(w) && !(w.call() instanceof Call.Put p && seen.contains(p.value()))
            && overwritten(w, current, firstObserver)) {
          current.remove(w);
          dropped = true;
          break;
        }
      }
    }
    return current;
  }

  private static boolean overwritten(Operation w, List<Operation> ops, long firstObserver) {
    for (Operation w2 : ops) {
      if (w2 != w && blind(w2) && w2.invoke() > w.complete() && w2.complete() < firstObserver) {
        return true;
      }
    }
    return false;
  }

  /** A completed put or delete: it sets the state whatever it was, and sees nothing. */
  private static boolean blind(Operation o) {
    return !o.ambiguous() && (o.call() instanceof Call.Put || o.call() instanceof Call.Delete);
  }

  private static boolean observes(Operation o) {
    return o.call() instanceof Call.Get || o.call() instanceof Call.Cas;
  }

  private static Set<String> seenValues(List<Operation> ops) {
    Set<String> out = new HashSet<>();
    for (Operation o : ops) {
      Optional<String> v = o.result() instanceof Result.Read r ? r.value()
          : o.result() instanceof Result.Refused r ? r.found()
          : o.call() instanceof Call.Cas c ? c.expected() : Optional.empty();
      v.ifPresent(out::add);
    }
    return out;
  }
}
