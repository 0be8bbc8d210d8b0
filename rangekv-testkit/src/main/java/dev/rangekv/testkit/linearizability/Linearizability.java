package dev.rangekv.testkit.linearizability;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Checks a history of operations over many keys for linearizability, key by key (linearizability is
 * local: a history is linearizable if and only if each key's sub-history is), and shrinks each failing
 * key's history to a small witness that fails for the same reason ({@link Shrink}). Pure.
 */
public final class Linearizability {
  private Linearizability() {}

  /** The outcome of a check: how much was checked and the anomalies found (none: linearizable). */
  public record Report(int keys, int operations, List<Anomaly> anomalies) {
    public Report {
      anomalies = List.copyOf(anomalies);
    }

    public boolean linearizable() {
      return anomalies.isEmpty();
    }

    @Override
    public String toString() {
      StringBuilder s = new StringBuilder("linearizability: keys=" + keys + " operations=" + operations
          + " anomalies=" + anomalies.size());
      anomalies.forEach(a -> s.append('\n').append(a));
      return s.toString();
    }
  }

  /** Checks every key of {@code history}. */
  public static Report check(List<Operation> history) {
    Map<String, List<Operation>> byKey = new TreeMap<>();
    history.forEach(o -> byKey.computeIfAbsent(o.key(), k -> new ArrayList<>()).add(o));
    List<Anomaly> anomalies = new ArrayList<>();
    byKey.forEach((key, ops) -> {
      if (!Search.linearizable(ops)) {
        anomalies.add(new Anomaly(key, ops.size(), Shrink.witness(ops)));
      }
    });
    return new Report(byKey.size(), history.size(), anomalies);
  }

  /** Whether one key's operations have a linearization. */
  public static boolean linearizable(List<Operation> oneKey) {
    return Search.linearizable(oneKey);
  }
}
