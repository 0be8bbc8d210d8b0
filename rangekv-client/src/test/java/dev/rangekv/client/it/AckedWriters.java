package dev.rangekv.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.client.AmbiguousResultException;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.RangeKvException;
import dev.rangekv.core.key.Key;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

/**
 * Writer threads that put keys made by a key function and remember every acknowledged write, so a test
 * can check that none was lost. A write whose outcome is unknown (ambiguous) is remembered apart: it
 * may or may not be there. Other failures are counted, never hidden.
 */
final class AckedWriters implements AutoCloseable {
  private final RangeKvClient client;
  private final Map<Key, byte[]> acked = new ConcurrentHashMap<>();
  private final Map<Key, byte[]> ambiguous = new ConcurrentHashMap<>();
  private final AtomicLong sequence = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong ackedBytes = new AtomicLong();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final List<Thread> threads = new ArrayList<>();
  private final List<Throwable> unexpected = new ArrayList<>();

  /**
   * @param keyOf the key of write number n (0, 1, 2, ...)
   * @param valueBytes size of each value
   * @param limit stop after this many writes in all (Long.MAX_VALUE: until closed)
   */
  AckedWriters(RangeKvClient client, int threads, LongFunction<Key> keyOf, int valueBytes, long limit) {
    this.client = client;
    for (int t = 0; t < threads; t++) {
      Thread th = new Thread(() -> run(keyOf, valueBytes, limit), "acked-writer-" + t);
      th.setDaemon(true);
      this.threads.add(th);
      th.start();
    }
  }

  private void run(LongFunction<Key> keyOf, int valueBytes, long limit) {
    while (!stop.get()) {
      long n = sequence.getAndIncrement();
      if (n >= limit) {
        return;
      }
      Key key = keyOf.apply(n);
      byte[] value = new byte[valueBytes];
      Arrays.fill(value, (byte) n);
      try {
        client.put(key, value);
        acked.put(key, value);
        ambiguous.remove(key);
        ackedBytes.addAndGet(valueBytes + key.size());
      } catch (AmbiguousResultException e) {
        ambiguous.put(key, value);
      } catch (RangeKvException e) {
        failures.incrementAndGet();
      } catch (RuntimeException e) {
        synchronized (unexpected) {
          unexpected.add(e);
        }
      }
    }
  }

  long ackedBytes() {
    return ackedBytes.get();
  }

  long ackedCount() {
    return acked.size();
  }

  long failures() {
    return failures.get();
  }

  /** Waits for the writers to reach their limit (or be stopped). */
  void join() throws InterruptedException {
    for (Thread t : threads) {
      t.join();
    }
  }

  /** Every acknowledged write reads back with its value (an ambiguous later overwrite may also be there). */
  void assertNoAckedWriteLost() {
    synchronized (unexpected) {
      assertThat(unexpected).as("unexpected writer exceptions").isEmpty();
    }
    List<Key> keys = new ArrayList<>(acked.keySet());
    for (int i = 0; i < keys.size(); i += 200) {
      List<Key> chunk = keys.subList(i, Math.min(keys.size(), i + 200));
      List<Optional<byte[]>> got = client.batchGet(chunk);
      for (int j = 0; j < chunk.size(); j++) {
        Key k = chunk.get(j);
        assertThat(got.get(j)).as("acknowledged write of %s", k).isPresent();
        byte[] v = got.get(j).get();
        boolean matches = Arrays.equals(v, acked.get(k)) || (ambiguous.containsKey(k) && Arrays.equals(v, ambiguous.get(k)));
        assertThat(matches).as("value of %s", k).isTrue();
      }
    }
  }

  @Override
  public void close() {
    stop.set(true);
    try {
      join();
    } catch (InterruptedException e) {
      // close() may not throw InterruptedException (javac's try lint): keep the flag, fail the test
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while stopping the writers", e);
    }
  }
}
