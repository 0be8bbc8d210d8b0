package dev.rangekv.client.keydesign;

import dev.rangekv.core.key.Key;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * The two lists of seed 003 for write-sharded counters: keys whose readers must sum the parts, and keys
 * whose writers spread over the parts. Changing both from one list breaks totals (readers miss parts,
 * or count a part twice during a fold); the methods enforce the safe order and fail fast when a step
 * is taken out of order.
 *
 * <p>This implementation serves writers in one process: a writer holds the read side of a lock while it
 * chooses and writes a part, and {@link #writersStop} takes the write side, so when it returns no
 * writer still uses the old list ("wait until every server has the change"). A deployment with several
 * client processes must distribute the lists and wait for every process to acknowledge each step.
 * Thread-safe.
 */
public final class HotKeyLists {
  private final Set<Key> readers = ConcurrentHashMap.newKeySet();
  private final Set<Key> writers = ConcurrentHashMap.newKeySet();
  private final ReadWriteLock writerGate = new ReentrantReadWriteLock();

  /** True when readers of {@code key} must also read its parts. */
  public boolean readsParts(Key key) {
    return readers.contains(key);
  }

  /** True when writers of {@code key} spread over its parts. */
  public boolean writesParts(Key key) {
    return writers.contains(key);
  }

  /** Step 1: readers learn that {@code key} has parts, before any part exists. */
  public void readersLearn(Key key) {
    readers.add(key);
  }

  /** Step 2: writers start using the parts; only after readers learnt. */
  public void writersSplit(Key key) {
    if (!readers.contains(key)) {
      throw new IllegalStateException("hot counter order violated: writers split " + key + " before readers learnt it");
    }
    writers.add(key);
  }

  /** Step 3: writers stop using the parts; returns once no writer still writes a part of {@code key}. */
  public void writersStop(Key key) {
    writers.remove(key);
    writerGate.writeLock().lock(); // waits for writers that chose a part under the old list
    writerGate.writeLock().unlock();
  }

  /** Step 5: readers forget the parts; only after writers stopped and every part was folded away. */
  public void readersForget(Key key) {
    if (writers.contains(key)) {
      throw new IllegalStateException("hot counter order violated: readers forget " + key + " while writers use its parts");
    }
    readers.remove(key);
  }

  /** Runs one writer's choose-and-write under the gate, so {@link #writersStop} can wait for it. */
  <T> T write(Supplier<T> chooseAndWrite) {
    writerGate.readLock().lock();
    try {
      return chooseAndWrite.get();
    } finally {
      writerGate.readLock().unlock();
    }
  }
}
