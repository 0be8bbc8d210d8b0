package dev.rangekv.testkit.linearizability;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A key whose operations have no linearization, with a small failing witness: the history cut where
 * it first fails, without the reads that are not needed to fail and without writes overwritten before
 * any remaining read; operations still running at the cut show as unknown. If the witness had a
 * linearization, so would the whole history.
 *
 * @param key the key
 * @param operations how many operations the key's whole history had
 * @param witness the witness, by invocation time
 */
public record Anomaly(String key, int operations, List<Operation> witness) {
  public Anomaly {
    witness = witness.stream().sorted(Comparator.comparingLong(Operation::invoke)).toList();
  }

  /** The sub-history, one operation a line, times in milliseconds from its first invocation. */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("not linearizable: key=").append(key).append(" operations=").append(operations)
        .append(", a failing witness of ").append(witness.size()).append(':');
    long origin = witness.isEmpty() ? 0 : witness.get(0).invoke();
    for (Operation o : witness) {
      String end = o.ambiguous() ? "never" : String.format("%.3f", (o.complete() - origin) / 1e6);
      s.append(String.format("%n  client %d  [%.3f .. %s ms]  %s -> %s", o.client(), (o.invoke() - origin) / 1e6, end,
          call(o.call()), result(o.result())));
    }
    return s.toString();
  }

  private static String call(Call c) {
    if (c instanceof Call.Put p) {
      return "put " + text(Optional.of(p.value()));
    }
    if (c instanceof Call.Get) {
      return "get";
    }
    if (c instanceof Call.Delete) {
      return "delete";
    }
    Call.Cas cas = (Call.Cas) c;
    return "cas " + text(cas.expected()) + " -> " + text(cas.next());
  }

  private static String result(Result r) {
    if (r instanceof Result.Read read) {
      return text(read.value());
    }
    if (r instanceof Result.Refused refused) {
      return "refused, found " + text(refused.found());
    }
    if (r instanceof Result.Unknown) {
      return "unknown (may or may not have applied)";
    }
    return r instanceof Result.Swapped ? "swapped" : "ok";
  }

  private static String text(Optional<String> v) {
    return v.map(s -> '"' + s + '"').orElse("absent");
  }
}
