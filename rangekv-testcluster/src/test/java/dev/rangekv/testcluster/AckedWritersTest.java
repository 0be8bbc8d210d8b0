package dev.rangekv.testcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.core.key.Key;
import dev.rangekv.testkit.history.Outcome;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

class AckedWritersTest {
  private final Map<Key, byte[]> store = new ConcurrentHashMap<>();

  private static AckedWriters.Write write(long n) {
    return new AckedWriters.Write(Key.utf8("k" + (n % 10)), ("v" + n).getBytes(StandardCharsets.UTF_8));
  }

  private AckedWriters.Reader reader() {
    return keys -> keys.stream().map(k -> Optional.ofNullable(store.get(k))).toList();
  }

  /** Writes 100 values over 10 keys with {@code threads} writers, each put going through {@code put}. */
  private AckedWriters run(int threads, AckedWriters.Put put, AckedWriters.Classifier classify) throws Exception {
    AckedWriters writers = new AckedWriters(new AckedWriters.Plan(threads, 100, (w, n) -> write(n), w -> put, classify));
    writers.start().join();
    return writers;
  }

  @Test
  void everyAcknowledgedWrite_readsBack_whenTheStoreKeepsThem() throws Exception {
    // one writer: the last acknowledged value of a key is the one stored
    AckedWriters writers = run(1, store::put, e -> Optional.empty());

    assertThat(writers.acks()).isEqualTo(100);
    assertThat(writers.ackedCount()).isEqualTo(10);
    writers.assertNoAckedWriteLost(reader());
  }

  @Test
  void aLostAcknowledgedWrite_failsTheCheck() throws Exception {
    AckedWriters writers = run(1, store::put, e -> Optional.empty());
    store.remove(Key.utf8("k3"));

    assertThatThrownBy(() -> writers.assertNoAckedWriteLost(reader())).isInstanceOf(AssertionError.class)
        .hasMessageContaining("acknowledged write of");
  }

  @Test
  void anAmbiguousWriteThatLanded_isAcceptedInPlaceOfTheAcknowledgedValue() throws Exception {
    AckedWriters writers = run(1, (k, v) -> {
      store.put(k, v);
      if (new String(v, StandardCharsets.UTF_8).equals("v99")) {
        throw new IllegalStateException("timed out after applying");
      }
    }, e -> Optional.of(Outcome.AMBIGUOUS));

    assertThat(writers.acks()).isEqualTo(99);
    writers.assertNoAckedWriteLost(reader());
  }

  @Test
  void refusedWrites_areCounted_andUnexpectedOnes_endTheirWriter_andFailTheCheck() throws Exception {
    AckedWriters refused = run(2, (k, v) -> {
      throw new IllegalArgumentException("refused");
    }, e -> Optional.of(Outcome.FAILED));
    assertThat(refused.failures()).isEqualTo(100);
    assertThat(refused.unexpected()).isEmpty();

    AckedWriters broken = run(2, (k, v) -> {
      throw new IllegalStateException("bug");
    }, e -> Optional.empty());
    assertThat(broken.unexpected()).hasSize(2);
    assertThatThrownBy(() -> broken.assertNoAckedWriteLost(reader())).isInstanceOf(AssertionError.class)
        .hasMessageContaining("unexpected writer exceptions");
  }
}
