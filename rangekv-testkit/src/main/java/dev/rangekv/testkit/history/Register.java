package dev.rangekv.testkit.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The history of one key written by one sequential writer: each write (a value, or absence for a
 * delete) with its outcome, in the order the writer issued them. Not thread-safe.
 *
 * <p>What a read may see: the effect of the latest write known to have happened (the last acknowledged
 * one, or one a read already saw; initially absence) or of any later ambiguous write (it may have
 * applied; at most once, in issue order, since a retried write keeps its id and Raft commits an old
 * leader's surviving entries before the new leader's). A read that sees a later ambiguous write moves
 * the known point there: later reads may not go back. Values must be unique per key.
 */
public final class Register {
  private record Write(Optional<String> effect, Outcome outcome) {}

  private final String key;
  private final List<Write> writes = new ArrayList<>();
  private int known = -1; // index of the latest write known to have happened; -1: the initial absence

  public Register(String key) {
    this.key = key;
  }

  public String key() {
    return key;
  }

  /** Records a completed write ({@code effect} empty for a delete). */
  public void write(Optional<String> effect, Outcome outcome) {
    writes.add(new Write(effect, outcome));
    if (outcome == Outcome.ACKED) {
      known = writes.size() - 1;
    }
  }

  /** The states a read may see now. */
  public List<Optional<String>> allowed() {
    List<Optional<String>> out = new ArrayList<>();
    out.add(effect(known));
    for (int i = known + 1; i < writes.size(); i++) {
      if (writes.get(i).outcome() == Outcome.AMBIGUOUS) {
        out.add(writes.get(i).effect());
      }
    }
    return out;
  }

  /** Judges a read that saw {@code seen}; when allowed, later reads may not see anything older. */
  public Optional<Violation> observe(Optional<String> seen) {
    if (effect(known).equals(seen)) {
      return Optional.empty();
    }
    for (int i = known + 1; i < writes.size(); i++) {
      Write w = writes.get(i);
      if (w.outcome() == Outcome.AMBIGUOUS && w.effect().equals(seen)) {
        known = i;
        return Optional.empty();
      }
    }
    String detail = "seen=" + text(seen) + " allowed=" + allowed().stream().map(Register::text).toList()
        + " writes=" + writes.size();
    for (Write w : writes) {
      if (w.outcome() == Outcome.FAILED && seen.isPresent() && w.effect().equals(seen)) {
        return Optional.of(new Violation(Violation.Kind.REJECTED_VISIBLE, key, detail));
      }
    }
    for (int i = -1; i < known; i++) {
      if (effect(i).equals(seen)) {
        return Optional.of(new Violation(Violation.Kind.LOST, key, detail));
      }
    }
    return Optional.of(new Violation(Violation.Kind.UNKNOWN_VALUE, key, detail));
  }

  /** Number of writes acknowledged. */
  public long acked() {
    return writes.stream().filter(w -> w.outcome() == Outcome.ACKED).count();
  }

  /** Number of writes whose outcome is unknown. */
  public long ambiguous() {
    return writes.stream().filter(w -> w.outcome() == Outcome.AMBIGUOUS).count();
  }

  private Optional<String> effect(int index) {
    return index < 0 ? Optional.empty() : writes.get(index).effect();
  }

  private static String text(Optional<String> v) {
    return v.map(s -> '"' + s + '"').orElse("absent");
  }
}
