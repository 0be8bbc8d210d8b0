package dev.rangekv.testkit.history;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The keys one sequential writer owns, each a {@link Register}: point writes, deletes and range
 * deletes go in with their outcomes; reads, scans and the final state are judged against them. Keys
 * are compared as Java strings, which matches the store's unsigned byte order for ASCII keys (the only
 * keys a run should use). Not thread-safe: one model per writer.
 *
 * <p>A range delete counts as ambiguous for every key it covers unless acknowledged: the client runs it
 * as one atomic piece per range, so a failure may have come after some pieces applied.
 */
public final class RegisterModel {
  private final NavigableMap<String, Register> keys = new TreeMap<>();
  private long puts;
  private long deletes;
  private long rangeDeletes;

  /** Records a completed put of a value unique to this key. */
  public void put(String key, String value, Outcome outcome) {
    register(key).write(Optional.of(value), outcome);
    puts++;
  }

  /** Records a completed delete. */
  public void delete(String key, Outcome outcome) {
    register(key).write(Optional.empty(), outcome);
    deletes++;
  }

  /** Records a completed delete of every key in {@code [lo, hi)}. */
  public void deleteRange(String lo, String hi, Outcome outcome) {
    Outcome perKey = outcome == Outcome.ACKED ? Outcome.ACKED : Outcome.AMBIGUOUS;
    for (Register r : keys.subMap(lo, true, hi, false).values()) {
      r.write(Optional.empty(), perKey);
    }
    rangeDeletes++;
  }

  /** Judges a point read of {@code key} that saw {@code seen}. */
  public Optional<Violation> read(String key, Optional<String> seen) {
    return register(key).observe(seen);
  }

  /**
   * Judges a scan of {@code [lo, hi)} that returned {@code entries} (key, value) in ascending order, or
   * descending when {@code reverse}: order, bounds, each value, and every model key it left out (which
   * must be allowed to be absent).
   */
  public List<Violation> scan(String lo, String hi, boolean reverse, List<Map.Entry<String, String>> entries) {
    List<Violation> out = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    String previous = null;
    for (Map.Entry<String, String> e : entries) {
      String k = e.getKey();
      if (k.compareTo(lo) < 0 || k.compareTo(hi) >= 0) {
        out.add(new Violation(Violation.Kind.SCAN_ORDER, k, "outside [" + lo + ", " + hi + ")"));
        continue;
      }
      if (previous != null && (reverse ? k.compareTo(previous) >= 0 : k.compareTo(previous) <= 0)) {
        out.add(new Violation(Violation.Kind.SCAN_ORDER, k, "after " + previous + " reverse=" + reverse));
      }
      previous = k;
      if (seen.add(k)) {
        read(k, Optional.of(e.getValue())).ifPresent(out::add);
      }
    }
    for (Register r : keys.subMap(lo, true, hi, false).values()) {
      if (!seen.contains(r.key())) {
        r.observe(Optional.empty()).ifPresent(out::add);
      }
    }
    return out;
  }

  /** The states a read of {@code key} may see now. */
  public List<Optional<String>> allowed(String key) {
    Register r = keys.get(key);
    return r == null ? List.of(Optional.empty()) : r.allowed();
  }

  /** The keys this model holds, in order. */
  public Set<String> keys() {
    return keys.navigableKeySet();
  }

  /** Writes (puts and deletes, range deletes once each) acknowledged / ambiguous, over all keys. */
  public long ackedKeyWrites() {
    return keys.values().stream().mapToLong(Register::acked).sum();
  }

  public long ambiguousKeyWrites() {
    return keys.values().stream().mapToLong(Register::ambiguous).sum();
  }

  public long operations() {
    return puts + deletes + rangeDeletes;
  }

  private Register register(String key) {
    return keys.computeIfAbsent(key, Register::new);
  }
}
