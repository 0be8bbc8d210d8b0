package dev.rangekv.testkit.linearizability;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The values a key's whole history wrote, to tell whether a sub-history keeps a write of every such
 * value it observes (through a get, a refused compare-and-set's finding, or a swap's expectation).
 * Pure.
 */
final class Sources {
  private final Set<String> written;

  Sources(List<Operation> history) {
    written = writes(history);
  }

  /** Whether every value {@code sub} observes that the whole history wrote is also written in {@code sub}. */
  boolean closed(List<Operation> sub) {
    Set<String> writtenHere = writes(sub);
    for (Operation o : sub) {
      Optional<String> seen = observed(o);
      if (seen.isPresent() && written.contains(seen.get()) && !writtenHere.contains(seen.get())) {
        return false;
      }
    }
    return true;
  }

  private static Set<String> writes(List<Operation> ops) {
    Set<String> out = new HashSet<>();
    for (Operation o : ops) {
      if (o.call() instanceof Call.Put p) {
        out.add(p.value());
      } else if (o.call() instanceof Call.Cas c && !(o.result() instanceof Result.Refused)) {
        c.next().ifPresent(out::add);
      }
    }
    return out;
  }

  private static Optional<String> observed(Operation o) {
    if (o.result() instanceof Result.Read r) {
      return r.value();
    }
    if (o.result() instanceof Result.Refused r) {
      return r.found();
    }
    if (o.result() instanceof Result.Swapped && o.call() instanceof Call.Cas c) {
      return c.expected();
    }
    return Optional.empty();
  }
}
