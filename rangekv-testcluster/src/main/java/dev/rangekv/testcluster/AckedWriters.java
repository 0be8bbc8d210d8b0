package dev.rangekv.testcluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.testkit.Await;
import dev.rangekv.testkit.history.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * Writer threads that put the writes a {@link Plan} makes, each through its own {@link Put} (a router or a
 * client: how a write is sent is the caller's), and remember every acknowledged write, so a test can check
 * that none was lost. A write whose outcome is unknown (ambiguous) is remembered apart: it may or may not
 * be there. Refused writes are counted; an exception the caller's {@link Plan#classify} does not expect is
 * kept for the check and ends its writer. Thread-safe.
 */
public final class AckedWriters implements AutoCloseable {
  /** Sends one put; returns once it is acknowledged, throws otherwise. */
  @FunctionalInterface
  public interface Put {
    void put(Key key, byte[] value);
  }

  /** Reads the current values of {@code keys} (empty where absent), in their order. */
  @FunctionalInterface
  public interface Reader {
    List<Optional<byte[]>> read(List<Key> keys);
  }

  /** One write: a key and its value. */
  public record Write(Key key, byte[] value) {}

  /**
   * Makes write number {@code n} (0, 1, 2, ... across all writers) for {@code writer}; a writer calls it only
   * with its own index, so per-writer state needs no lock.
   */
  @FunctionalInterface
  public interface Writes {
    Write make(int writer, long n);
  }

  /** How a failed put ended (ambiguous or refused), or empty for an exception no writer should see. */
  @FunctionalInterface
  public interface Classifier {
    Optional<Outcome> classify(RuntimeException e);
  }

  /**
   * What the writers do: {@code threads} writers make {@code limit} writes in all (Long.MAX_VALUE: until
   * closed), each sending through its own {@code puts.apply(writer)}.
   */
  public record Plan(int threads, long limit, Writes writes, IntFunction<Put> puts, Classifier classify) {
    public Plan {
      if (threads < 0 || limit < 0) {
        throw new IllegalArgumentException("threads and limit must be >= 0: " + threads + ", " + limit);
      }
    }
  }

  private final Map<Key, byte[]> acked = new ConcurrentHashMap<>();
  private final Map<Key, byte[]> ambiguous = new ConcurrentHashMap<>();
  private final AtomicLong sequence = new AtomicLong();
  private final AtomicLong acks = new AtomicLong();
  private final AtomicLong ackedBytes = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final List<Thread> threads = new ArrayList<>();
  private final List<Throwable> unexpected = new CopyOnWriteArrayList<>();

  /** Writers of {@code plan}, not started yet. */
  public AckedWriters(Plan plan) {
    for (int w = 0; w < plan.threads(); w++) {
      int writer = w;
      Put put = plan.puts().apply(w);
      Thread t = new Thread(() -> run(writer, put, plan), "acked-writer-" + w);
      t.setDaemon(true);
      threads.add(t);
    }
  }

  /** Starts the writers; returns this. */
  public AckedWriters start() {
    threads.forEach(Thread::start);
    return this;
  }

  private void run(int writer, Put put, Plan plan) {
    while (!stop.get()) {
      long n = sequence.getAndIncrement();
      if (n >= plan.limit()) {
        return;
      }
      Write w = plan.writes().make(writer, n);
      try {
        put.put(w.key(), w.value());
        acked.put(w.key(), w.value());
        ambiguous.remove(w.key());
        acks.incrementAndGet();
        ackedBytes.addAndGet(w.value().length + w.key().size());
      } catch (RuntimeException e) {
        Optional<Outcome> outcome = plan.classify().classify(e);
        if (outcome.isEmpty()) {
          unexpected.add(e);
          return;
        }
        if (outcome.get() == Outcome.AMBIGUOUS) {
          ambiguous.put(w.key(), w.value());
        } else {
          failures.incrementAndGet();
        }
      }
    }
  }

  /** The last acknowledged value of every key written. */
  public Map<Key, byte[]> acked() {
    return Map.copyOf(acked);
  }

  /** Keys with an acknowledged write. */
  public long ackedCount() {
    return acked.size();
  }

  /** Acknowledged writes (a key written twice counts twice). */
  public long acks() {
    return acks.get();
  }

  public long ackedBytes() {
    return ackedBytes.get();
  }

  /** Writes refused (definitely not applied). */
  public long failures() {
    return failures.get();
  }

  /** Exceptions no writer should have seen; each ended its writer. */
  public List<Throwable> unexpected() {
    return List.copyOf(unexpected);
  }

  /** Waits until {@code more} further writes were acknowledged; fails at once on an unexpected exception. */
  public void awaitAcks(long more, Duration timeout) {
    long target = acks.get() + more;
    // acknowledgements have no event to await: polled
    Await.until(timeout, Duration.ofMillis(20), target + " acknowledged writes",
        () -> acks.get() >= target || !unexpected.isEmpty());
    assertThat(unexpected).as("unexpected writer exceptions").isEmpty();
  }

  /** Waits for the writers to reach their limit (or be stopped). */
  public void join() throws InterruptedException {
    for (Thread t : threads) {
      t.join();
    }
  }

  /**
   * No writer saw an unexpected exception, and every acknowledged write reads back through {@code reader}
   * (200 keys a call) with its value (or with an ambiguous later overwrite's).
   */
  public void assertNoAckedWriteLost(Reader reader) {
    assertThat(unexpected).as("unexpected writer exceptions").isEmpty();
    List<Key> keys = new ArrayList<>(acked.keySet());
    for (int i = 0; i < keys.size(); i += 200) {
      List<Key> chunk = keys.subList(i, Math.min(keys.size(), i + 200));
      List<Optional<byte[]>> got = reader.read(chunk);
      for (int j = 0; j < chunk.size(); j++) {
        Key k = chunk.get(j);
        assertThat(got.get(j)).as("acknowledged write of %s", k).isPresent();
        byte[] v = got.get(j).get();
        boolean matches = Arrays.equals(v, acked.get(k))
            || (ambiguous.containsKey(k) && Arrays.equals(v, ambiguous.get(k)));
        assertThat(matches).as("value of %s", k).isTrue();
      }
    }
  }

  /** Stops the writers after their current write and waits for them. */
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
