package dev.rangekv.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Random histories against a brute-force store that applies acknowledged writes, a coin-flip share of
 * ambiguous ones (in order) and no failed one: the model accepts every read and scan of that store,
 * and flags any state it does not allow.
 */
class RegisterModelPropertyTest {

  /** The store the model must accept; ambiguous writes apply by coin flip. */
  static final class Store {
    final TreeMap<String, String> data = new TreeMap<>();
    long counter;
  }

  static Outcome outcome(Gen g) {
    int r = g.between(0, 9);
    return r < 6 ? Outcome.ACKED : r < 8 ? Outcome.AMBIGUOUS : Outcome.FAILED;
  }

  static boolean applies(Gen g, Outcome o) {
    return o == Outcome.ACKED || o == Outcome.AMBIGUOUS && g.random().nextBoolean();
  }

  static String key(Gen g) {
    return "k" + g.between(0, 9);
  }

  /** Runs a random history on both; returns the final store. */
  static Store run(Gen g, RegisterModel model) {
    Store store = new Store();
    int seq = 0;
    for (int i = 0; i < g.size(); i++) {
      int op = g.between(0, 9);
      Outcome o = outcome(g);
      if (op < 4) {
        String k = key(g);
        String v = k + "=" + seq++;
        if (applies(g, o)) {
          store.data.put(k, v);
        }
        model.put(k, v, o);
      } else if (op < 5) {
        String k = key(g);
        if (applies(g, o)) {
          store.data.remove(k);
        }
        model.delete(k, o);
      } else if (op < 6) {
        String lo = key(g);
        String hi = key(g);
        if (lo.compareTo(hi) > 0) {
          String t = lo;
          lo = hi;
          hi = t;
        }
        for (String k : new ArrayList<>(store.data.subMap(lo, hi).keySet())) {
          // pieces apply one by one: a failed range delete may have removed some keys
          if (o == Outcome.ACKED || g.random().nextBoolean()) {
            store.data.remove(k);
          }
        }
        model.deleteRange(lo, hi, o);
      } else if (op < 9) {
        String k = key(g);
        assertThat(model.read(k, Optional.ofNullable(store.data.get(k)))).isEmpty();
      } else {
        boolean reverse = g.random().nextBoolean();
        List<Map.Entry<String, String>> entries = new ArrayList<>(
            (reverse ? store.data.descendingMap() : store.data).entrySet());
        assertThat(model.scan("", "l", reverse, entries)).isEmpty();
      }
    }
    return store;
  }

  @Test
  void everyStateTheStoreReaches_isAllowed() {
    Property.named("model accepts a correct store").cases(500).sizes(1, 200).check(g -> {
      RegisterModel model = new RegisterModel();
      Store store = run(g, model);
      assertThat(model.scan("", "l", false, new ArrayList<>(store.data.entrySet()))).isEmpty();
    });
  }

  @Test
  void aStateNotAllowed_isFlagged() {
    Property.named("model flags a wrong final state").cases(500).sizes(1, 200).check(g -> {
      RegisterModel model = new RegisterModel();
      Store store = run(g, model);
      String k = key(g);
      List<Optional<String>> allowed = model.allowed(k);
      TreeMap<String, String> wrong = new TreeMap<>(store.data);
      if (!allowed.contains(Optional.empty())) {
        wrong.remove(k); // an acknowledged value lost
      } else {
        wrong.put(k, "never-written");
      }
      assertThat(model.scan("", "l", false, new ArrayList<>(wrong.entrySet()))).isNotEmpty();
    });
  }

  @Test
  void scansOutOfOrder_orRepeated_areFlagged() {
    RegisterModel model = new RegisterModel();
    model.put("a", "1", Outcome.ACKED);
    model.put("b", "2", Outcome.ACKED);
    assertThat(model.scan("", "z", false, List.of(Map.entry("b", "2"), Map.entry("a", "1"))))
        .extracting(Violation::kind).contains(Violation.Kind.SCAN_ORDER);
    assertThat(model.scan("", "z", true, List.of(Map.entry("b", "2"), Map.entry("a", "1")))).isEmpty();
    assertThat(model.scan("", "z", false, List.of(Map.entry("a", "1"), Map.entry("a", "1"), Map.entry("b", "2"))))
        .extracting(Violation::kind).containsExactly(Violation.Kind.SCAN_ORDER);
    assertThat(model.scan("b", "z", false, List.of(Map.entry("a", "1"), Map.entry("b", "2"))))
        .extracting(Violation::kind).containsExactly(Violation.Kind.SCAN_ORDER);
  }
}
