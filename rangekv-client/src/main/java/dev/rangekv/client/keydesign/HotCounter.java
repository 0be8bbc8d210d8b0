package dev.rangekv.client.keydesign;

import dev.rangekv.client.BatchOp;
import dev.rangekv.client.BatchResult;
import dev.rangekv.client.CasResult;
import dev.rangekv.client.CrossRangeBatchException;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyCodec;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A counter that can be write-sharded while hot (seed 003): cold, it is one key; heated, writers add
 * to one of {@code parts} part keys ({@code key ++ "#" ++ bigEndian(i)}) chosen at random and readers
 * sum the key and all parts. Heating and cooling follow the safe order of {@link HotKeyLists}: readers
 * learn first, then writers split; to cool, writers stop first, the parts are folded into the key only
 * atomically (one atomic batch that checks every part's value, adds their sum to the key and deletes
 * them, possible only while all of them live in one range), and readers forget last. When the parts
 * span several ranges the fold is skipped and readers keep reading the parts, which stays exact.
 *
 * <p>Values are 8-byte big-endian longs; an increment is a compare-and-set loop on one key, so every
 * retry goes through the client's write ids (applied at most once). Thread-safe.
 */
public final class HotCounter {
  private static final int MAX_CAS_TRIES = 10_000;
  private static final int MAX_FOLD_TRIES = 200;
  /** Longest pause between fold attempts: writers still add to the key itself while it folds. */
  private static final long MAX_FOLD_PAUSE_MILLIS = 50;

  private final RangeKvClient client;
  private final Key key;
  private final List<Key> parts;
  private final HotKeyLists lists;

  /** The outcome of {@link #cool()}. */
  public enum FoldOutcome {
    /** Every part was folded into the key; readers no longer read parts. */
    FOLDED,
    /** The parts could not be folded atomically (they span ranges): readers keep reading them. */
    KEPT_PARTS
  }

  public HotCounter(RangeKvClient client, Key key, int parts, HotKeyLists lists) {
    if (parts < 2) {
      throw new IllegalArgumentException("a hot counter needs at least 2 parts, got " + parts);
    }
    this.client = client;
    this.key = key;
    this.lists = lists;
    List<Key> ps = new ArrayList<>(parts);
    for (int i = 0; i < parts; i++) {
      ps.add(partKey(key, i));
    }
    this.parts = List.copyOf(ps);
  }

  /** The key of part {@code i} of {@code counter}. */
  public static Key partKey(Key counter, int i) {
    return counter.concat(Key.utf8("#")).concat(KeyCodec.bigEndian(i));
  }

  public List<Key> partKeys() {
    return parts;
  }

  /** Adds {@code delta}: to a random part while writers split the key, else to the key itself. */
  public void add(long delta) {
    lists.write(() -> {
      Key target = lists.writesParts(key) ? parts.get(ThreadLocalRandom.current().nextInt(parts.size())) : key;
      addTo(target, delta);
      return null;
    });
  }

  /** The total: the key plus, while readers read parts, every part. */
  public long total() {
    List<Key> keys = new ArrayList<>(parts.size() + 1);
    keys.add(key);
    if (lists.readsParts(key)) {
      keys.addAll(parts);
    }
    long sum = 0;
    for (Optional<byte[]> v : client.batchGet(keys)) {
      sum += decode(v);
    }
    return sum;
  }

  /** Spreads writes over the parts: readers learn first, then writers split. */
  public void heat() {
    lists.readersLearn(key);
    lists.writersSplit(key);
  }

  /** Stops spreading writes, then folds the parts back if they share one range. */
  public FoldOutcome cool() {
    lists.writersStop(key);
    return fold();
  }

  /**
   * Folds the parts into the key with one atomic batch (all keys must share a range), then readers
   * forget the parts. Concurrent changes make the batch's checks fail; it then re-reads and retries
   * after a random pause that grows with the attempts, so that writers still adding to the key (each
   * with its own compare-and-set loop) cannot keep landing between its read and its batch.
   */
  public FoldOutcome fold() {
    if (lists.writesParts(key)) {
      throw new IllegalStateException("hot counter order violated: fold of " + key + " while writers use its parts");
    }
    List<Key> all = new ArrayList<>(parts.size() + 1);
    all.add(key);
    all.addAll(parts);
    for (int attempt = 0; attempt < MAX_FOLD_TRIES; attempt++) {
      // one range: one multi-get, i.e. one snapshot of all parts
      List<Optional<byte[]>> values = client.batchGet(all);
      List<BatchOp> ops = new ArrayList<>();
      long sum = 0;
      for (int i = 0; i < all.size(); i++) {
        ops.add(BatchOp.check(all.get(i), values.get(i)));
        sum += decode(values.get(i));
      }
      ops.add(BatchOp.put(key, encode(sum)));
      for (int i = 1; i < all.size(); i++) {
        if (values.get(i).isPresent()) {
          ops.add(BatchOp.delete(all.get(i)));
        }
      }
      BatchResult result;
      try {
        result = client.atomicBatch(ops);
      } catch (CrossRangeBatchException e) {
        return FoldOutcome.KEPT_PARTS;
      }
      if (result.succeeded()) {
        lists.readersForget(key);
        return FoldOutcome.FOLDED;
      }
      pauseBeforeRetry(attempt);
    }
    return FoldOutcome.KEPT_PARTS;
  }

  private static void pauseBeforeRetry(int attempt) {
    long bound = Math.min(MAX_FOLD_PAUSE_MILLIS, 1L << Math.min(attempt, 6));
    try {
      Thread.sleep(1 + ThreadLocalRandom.current().nextLong(bound));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while folding a hot counter", e);
    }
  }

  private void addTo(Key target, long delta) {
    Optional<byte[]> current = client.get(target);
    for (int i = 0; i < MAX_CAS_TRIES; i++) {
      CasResult r = client.compareAndSet(target, current, Optional.of(encode(decode(current) + delta)));
      if (r.succeeded()) {
        return;
      }
      current = r.current();
    }
    throw new IllegalStateException("hot counter increment of " + target + " lost " + MAX_CAS_TRIES + " races in a row");
  }

  static byte[] encode(long v) {
    return ByteBuffer.allocate(8).putLong(v).array();
  }

  static long decode(Optional<byte[]> v) {
    return v.map(b -> ByteBuffer.wrap(b).getLong()).orElse(0L);
  }
}
