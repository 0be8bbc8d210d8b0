package dev.rangekv.server.multiraft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * {@link TermRuns} against a brute-force model (one map entry per log index): seeded appends, conflicting
 * suffixes cut off and snapshots; after every step the term of every index agrees, and indexes outside the
 * held log have none. {@code -Drangekv.seed=N} replays a case.
 */
class TermRunsPropertyTest {
  @Test
  void termsOfHeldEntries_matchAModelOfEveryEntry() {
    Property.named("term runs").cases(200).sizes(5, 200).check(this::runCase);
  }

  private void runCase(Gen gen) {
    TermRuns runs = new TermRuns();
    TreeMap<Long, Integer> model = new TreeMap<>();
    long first = 1;
    int term = 1;
    for (int step = 0; step < gen.size(); step++) {
      long last = model.isEmpty() ? first - 1 : model.lastKey();
      int choice = gen.nextInt(10);
      if (choice < 6) {
        if (gen.chance(0.2)) {
          term++;
        }
        runs.appended(last + 1, term);
        model.put(last + 1, term);
      } else if (choice < 8 && last >= first) {
        long from = first + gen.nextInt((int) (last - first + 1));
        runs.truncatedFrom(from);
        model.tailMap(from, true).clear();
      } else if (last >= first) {
        long at = first + gen.nextInt((int) (last - first + 1));
        int atTerm = model.get(at);
        runs.snapshotAt(at, atTerm);
        model.headMap(at, false).clear();
        first = at;
      }
      long lastNow = model.isEmpty() ? first - 1 : model.lastKey();
      for (long i = first - 2; i <= lastNow + 2; i++) {
        OptionalLong expected = model.containsKey(i) ? OptionalLong.of(model.get(i)) : OptionalLong.empty();
        assertThat(runs.termAt(i)).as("term of %d after step %d", i, step).isEqualTo(expected);
      }
    }
  }
}
