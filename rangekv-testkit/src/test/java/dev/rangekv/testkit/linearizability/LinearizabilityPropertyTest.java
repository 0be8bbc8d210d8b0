package dev.rangekv.testkit.linearizability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Small random histories of one key, some from a simulated linearizable execution and some with
 * arbitrary results, judged by the checker and by brute force: every order of every subset of the
 * ambiguous operations together with all completed ones, kept if it respects real time and the
 * register accepts it in sequence. The two must agree; a failing history's witness must itself fail
 * by brute force, and a linearizable one cut at any time must stay linearizable.
 */
class LinearizabilityPropertyTest {
  private static final List<String> VALUES = List.of("a", "b", "c");

  @Test
  void theChecker_agreesWithBruteForce() {
    Property.named("checker agrees with brute force").cases(1500).sizes(1, 7).check(g -> {
      boolean simulated = g.nextBoolean();
      List<Operation> ops = simulated ? simulated(g) : arbitrary(g);
      boolean expected = BruteForce.linearizable(ops);
      assertThat(Linearizability.linearizable(ops)).as("%s", ops).isEqualTo(expected);
      if (simulated) {
        assertThat(expected).as("a simulated execution is linearizable: %s", ops).isTrue();
      }
      if (!expected) {
        List<Operation> witness = Linearizability.check(ops).anomalies().get(0).witness();
        assertThat(BruteForce.linearizable(witness)).as("witness %s", witness).isFalse();
        for (Operation w : witness) {
          Operation original = ops.stream().filter(o -> o.id() == w.id()).findFirst().orElseThrow();
          assertThat(w.call()).isEqualTo(original.call());
          assertThat(w.result().equals(original.result()) || w.ambiguous()).as("%s from %s", w, original).isTrue();
        }
      }
      // each shrinking step is sound: cutting a linearizable history at any time leaves it linearizable
      if (expected && !ops.isEmpty()) {
        long t = ops.get(g.nextInt(ops.size())).invoke() + g.between(0, 5);
        assertThat(BruteForce.linearizable(Shrink.cutAt(ops, t))).as("cut at %d of %s", t, ops).isTrue();
      }
    });
  }

  /** Up to 3 clients, each running its calls one after another, over times 0..40. */
  private static List<long[]> intervals(Gen g) {
    List<long[]> out = new ArrayList<>();
    long[] clock = new long[3];
    for (int i = 0; i < g.size(); i++) {
      int client = g.nextInt(3);
      long invoke = clock[client] + g.between(0, 4);
      long complete = invoke + g.between(0, 8);
      clock[client] = complete + 1;
      out.add(new long[] {client, invoke, complete});
    }
    return out;
  }

  private static Call call(Gen g) {
    int r = g.nextInt(10);
    if (r < 3) {
      return new Call.Put(g.pick(VALUES));
    }
    if (r < 7) {
      return new Call.Get();
    }
    if (r < 8) {
      return new Call.Delete();
    }
    return new Call.Cas(value(g), value(g));
  }

  private static Optional<String> value(Gen g) {
    return g.chance(0.25) ? Optional.empty() : Optional.of(g.pick(VALUES));
  }

  /** Results made up at random: often not linearizable. */
  private static List<Operation> arbitrary(Gen g) {
    List<Operation> ops = new ArrayList<>();
    for (long[] in : intervals(g)) {
      Call call = call(g);
      boolean unknown = g.chance(0.2);
      Result result;
      if (unknown) {
        result = new Result.Unknown();
      } else if (call instanceof Call.Get) {
        result = new Result.Read(value(g));
      } else if (call instanceof Call.Cas) {
        result = g.nextBoolean() ? new Result.Swapped() : new Result.Refused(value(g));
      } else {
        result = new Result.Done();
      }
      ops.add(new Operation(ops.size(), (int) in[0], "k", call, result, in[1], unknown ? Operation.NEVER : in[2]));
    }
    return ops;
  }

  /**
   * A real register run: each operation takes effect at a point inside its interval, in point order,
   * and reports what it saw; an ambiguous one takes effect or not by coin flip.
   */
  private static List<Operation> simulated(Gen g) {
    List<long[]> in = intervals(g);
    List<Call> calls = new ArrayList<>();
    List<Double> points = new ArrayList<>();
    for (long[] i : in) {
      calls.add(call(g));
      points.add(i[1] + g.random().nextDouble() * (i[2] - i[1]));
    }
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < in.size(); i++) {
      order.add(i);
    }
    order.sort((a, b) -> Double.compare(points.get(a), points.get(b)));
    Result[] results = new Result[in.size()];
    Optional<String> state = Optional.empty();
    for (int i : order) {
      Call c = calls.get(i);
      boolean unknown = g.chance(0.2);
      boolean applies = !unknown || g.nextBoolean();
      Result r;
      Optional<String> next = state;
      if (c instanceof Call.Put p) {
        r = new Result.Done();
        next = Optional.of(p.value());
      } else if (c instanceof Call.Delete) {
        r = new Result.Done();
        next = Optional.empty();
      } else if (c instanceof Call.Get) {
        r = new Result.Read(state);
      } else {
        Call.Cas cas = (Call.Cas) c;
        r = cas.expected().equals(state) ? new Result.Swapped() : new Result.Refused(state);
        next = cas.expected().equals(state) ? cas.next() : state;
      }
      if (applies) {
        state = next;
      }
      results[i] = unknown ? new Result.Unknown() : r;
    }
    List<Operation> ops = new ArrayList<>();
    for (int i = 0; i < in.size(); i++) {
      boolean unknown = results[i] instanceof Result.Unknown;
      ops.add(new Operation(i, (int) in.get(i)[0], "k", calls.get(i), results[i], in.get(i)[1],
          unknown ? Operation.NEVER : in.get(i)[2]));
    }
    return ops;
  }

  /** Every permutation of every subset of the ambiguous operations plus all the completed ones. */
  static final class BruteForce {
    static boolean linearizable(List<Operation> ops) {
      List<Operation> completed = ops.stream().filter(o -> !o.ambiguous()).toList();
      List<Operation> ambiguous = ops.stream().filter(Operation::ambiguous).toList();
      for (int mask = 0; mask < 1 << ambiguous.size(); mask++) {
        List<Operation> chosen = new ArrayList<>(completed);
        for (int i = 0; i < ambiguous.size(); i++) {
          if ((mask >> i & 1) == 1) {
            chosen.add(ambiguous.get(i));
          }
        }
        if (anyOrder(chosen, new ArrayList<>(), new boolean[chosen.size()])) {
          return true;
        }
      }
      return false;
    }

    private static boolean anyOrder(List<Operation> ops, List<Operation> prefix, boolean[] used) {
      if (prefix.size() == ops.size()) {
        return respectsRealTime(prefix) && accepts(prefix);
      }
      for (int i = 0; i < ops.size(); i++) {
        if (!used[i]) {
          used[i] = true;
          prefix.add(ops.get(i));
          boolean ok = anyOrder(ops, prefix, used);
          prefix.remove(prefix.size() - 1);
          used[i] = false;
          if (ok) {
            return true;
          }
        }
      }
      return false;
    }

    /** No operation comes after one that was invoked after it completed. */
    private static boolean respectsRealTime(List<Operation> order) {
      for (int i = 0; i < order.size(); i++) {
        for (int j = i + 1; j < order.size(); j++) {
          if (order.get(j).complete() < order.get(i).invoke()) {
            return false;
          }
        }
      }
      return true;
    }

    /** The register run in this order gives every completed operation its result; ambiguous ones any. */
    private static boolean accepts(List<Operation> order) {
      Optional<String> state = Optional.empty();
      for (Operation o : order) {
        Call c = o.call();
        Result r = o.result();
        boolean unknown = r instanceof Result.Unknown;
        if (c instanceof Call.Put p) {
          state = Optional.of(p.value());
        } else if (c instanceof Call.Delete) {
          state = Optional.empty();
        } else if (c instanceof Call.Get) {
          if (!unknown && !((Result.Read) r).value().equals(state)) {
            return false;
          }
        } else {
          Call.Cas cas = (Call.Cas) c;
          boolean swaps = cas.expected().equals(state);
          if (!unknown && (r instanceof Result.Swapped) != swaps) {
            return false;
          }
          if (r instanceof Result.Refused refused && !refused.found().equals(state)) {
            return false;
          }
          state = swaps ? cas.next() : state;
        }
      }
      return true;
    }
  }
}
