package dev.rangekv.meta.controller;

import dev.rangekv.core.policy.Move;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The ranges the controller is working on: each operation (a tick's step, an admin call) holds a
 * {@link Lease} on its ranges, so a range sees at most one step at a time, and the replica moves in
 * flight are counted against the planner's budget. Thread-safe (one lock; every call is short).
 */
final class InFlight {
  private final Map<Long, Lease> byRange = new HashMap<>();
  private final Set<Lease> leases = new HashSet<>();

  /** An operation's hold on some ranges; released once, when the operation ends. */
  final class Lease {
    final String what;
    private final Set<Long> rangeIds = new HashSet<>();
    private Move move;

    private Lease(String what) {
      this.what = what;
    }

    /** Adds ranges the operation created (the right half of a split), which nobody else can hold yet. */
    void extend(Collection<Long> ids) {
      synchronized (InFlight.this) {
        for (long id : ids) {
          Lease other = byRange.get(id);
          if (other == null) {
            byRange.put(id, this);
            rangeIds.add(id);
          }
        }
      }
    }

    /** The ranges held now. */
    Set<Long> ids() {
      synchronized (InFlight.this) {
        return Set.copyOf(rangeIds);
      }
    }

    /** Marks the replica move this operation is executing now (empty when none). */
    void moving(Optional<Move> m) {
      synchronized (InFlight.this) {
        move = m.orElse(null);
      }
    }
  }

  /** A lease on all of {@code ids}, or empty when any of them is held already. */
  synchronized Optional<Lease> acquire(Collection<Long> ids, String what) {
    for (long id : ids) {
      if (byRange.containsKey(id)) {
        return Optional.empty();
      }
    }
    Lease l = new Lease(what);
    for (long id : ids) {
      byRange.put(id, l);
      l.rangeIds.add(id);
    }
    leases.add(l);
    return Optional.of(l);
  }

  synchronized void release(Lease l) {
    for (long id : l.rangeIds) {
      byRange.remove(id, l);
    }
    leases.remove(l);
  }

  synchronized boolean busy(long rangeId) {
    return byRange.containsKey(rangeId);
  }

  /** What holds {@code rangeId}, if anything. */
  synchronized Optional<String> holder(long rangeId) {
    Lease l = byRange.get(rangeId);
    return l == null ? Optional.empty() : Optional.of(l.what);
  }

  /** The replica moves in flight now. */
  synchronized List<Move> moves() {
    List<Move> out = new ArrayList<>();
    for (Lease l : leases) {
      if (l.move != null) {
        out.add(l.move);
      }
    }
    return out;
  }
}
