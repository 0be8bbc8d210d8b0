package dev.rangekv.testkit.linearizability;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Checks a history of operations over many keys for linearizability, key by key (linearizability is
 * local: a history is linearizable if and only if each key's sub-history is), and shrinks each failing
 * key's history to a minimal failing sub-history. Pure.
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
        anomalies.add(new Anomaly(key, ops.size(), minimise(ops)));
      }
    });
    return new Report(byKey.size(), history.size(), anomalies);
  }

  /** Whether one key's operations have a linearization. */
  public static boolean linearizable(List<Operation> oneKey) {
    return Search.linearizable(oneKey);
  }

  /**
   * Shrinks a failing history (delta debugging): removes chunks of halving size while what is left
   * still fails, then single operations until none can go. Only sub-histories that keep the write of
   * every value they observe are tried (see {@link Sources}): otherwise a stale read would shrink to
   * a read of a value "never written", which explains nothing. The result fails, and removing any one
   * more operation from it either passes or drops the write of a value it observes.
   */
  static List<Operation> minimise(List<Operation> failing) {
    Sources sources = new Sources(failing);
    List<Operation> current = new ArrayList<>(failing);
    for (int chunk = Math.max(1, current.size() / 2); chunk > 1; chunk /= 2) {
      current = sweep(current, chunk, sources);
    }
    int before;
    do {
      before = current.size();
      current = sweep(current, 1, sources);
    } while (current.size() < before);
    return current;
  }

  private static List<Operation> sweep(List<Operation> ops, int chunk, Sources sources) {
    List<Operation> current = ops;
    int start = 0;
    while (start < current.size() && current.size() > 1) {
      List<Operation> candidate = new ArrayList<>(current.subList(0, start));
      candidate.addAll(current.subList(Math.min(current.size(), start + chunk), current.size()));
      if (!candidate.isEmpty() && sources.closed(candidate) && !Search.linearizable(candidate)) {
        current = candidate;
      } else {
        start += chunk;
      }
    }
    return current;
  }
}
