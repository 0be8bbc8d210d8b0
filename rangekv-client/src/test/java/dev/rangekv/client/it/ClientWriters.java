package dev.rangekv.client.it;

import dev.rangekv.client.AmbiguousResultException;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.RangeKvException;
import dev.rangekv.core.key.Key;
import dev.rangekv.testcluster.AckedWriters;
import dev.rangekv.testkit.history.Outcome;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.LongFunction;

/**
 * {@link AckedWriters} that write through a {@link RangeKvClient} shared by every writer thread: write n
 * puts {@code keyOf(n)} with a value of n's low byte repeated; an {@link AmbiguousResultException} is
 * an ambiguous write, any other {@link RangeKvException} a refused one. Read back with
 * {@code client::batchGet}.
 */
final class ClientWriters {
  private ClientWriters() {}

  /**
   * Starts {@code threads} writers.
   *
   * @param keyOf the key of write number n (0, 1, 2, ...)
   * @param valueBytes size of each value
   * @param limit stop after this many writes in all (Long.MAX_VALUE: until closed)
   */
  static AckedWriters start(RangeKvClient client, int threads, LongFunction<Key> keyOf, int valueBytes, long limit) {
    return new AckedWriters(new AckedWriters.Plan(threads, limit, (w, n) -> {
      byte[] value = new byte[valueBytes];
      Arrays.fill(value, (byte) n);
      return new AckedWriters.Write(keyOf.apply(n), value);
    }, w -> client::put, ClientWriters::classify)).start();
  }

  private static Optional<Outcome> classify(RuntimeException e) {
    if (e instanceof AmbiguousResultException) {
      return Optional.of(Outcome.AMBIGUOUS);
    }
    return e instanceof RangeKvException ? Optional.of(Outcome.FAILED) : Optional.empty();
  }
}
