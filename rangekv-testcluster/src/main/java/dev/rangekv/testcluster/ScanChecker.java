package dev.rangekv.testcluster;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.proto.KeyValueProto;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A reader that scans the whole keyspace in a loop while ranges move or merge: every scan must return
 * keys strictly ascending (no duplicates) and every one of the fixed keys written before it started
 * (no gaps). Violations are recorded, not thrown, and checked by the test. Closing it closes its router.
 */
public final class ScanChecker implements AutoCloseable {
  public static final int FIXED = 300;

  private final ClusterRouter router;
  private final Thread thread;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final AtomicLong scans = new AtomicLong();
  private final List<String> violations = new CopyOnWriteArrayList<>();

  /** A checker scanning through {@code router}, which it owns. */
  public ScanChecker(ClusterRouter router) {
    this.router = router;
    this.thread = new Thread(this::run, "scan-checker");
    thread.setDaemon(true);
  }

  public static String fixedKey(int i) {
    return String.format("fixed-%05d", i);
  }

  /** Writes the fixed keys (through {@code writer}) and starts scanning. */
  public void start(ClusterRouter writer) {
    for (int i = 0; i < FIXED; i++) {
      writer.put(fixedKey(i), "f" + i);
    }
    router.refresh();
    thread.start();
  }

  /** Whole scans finished so far. */
  public long scans() {
    return scans.get();
  }

  /** What the scans got wrong; empty when every scan was whole and in order. */
  public List<String> violations() {
    return List.copyOf(violations);
  }

  private void run() {
    while (!stop.get()) {
      try {
        List<KeyValueProto> all = router.scan(Key.EMPTY, RangeEnd.INFINITY, 0);
        check(all);
        scans.incrementAndGet();
      } catch (RuntimeException e) {
        violations.add("scan failed: " + e);
        return;
      }
    }
  }

  private void check(List<KeyValueProto> all) {
    List<String> fixed = new ArrayList<>();
    String previous = null;
    for (KeyValueProto kv : all) {
      String k = kv.getKey().toStringUtf8();
      if (previous != null && previous.compareTo(k) >= 0) {
        violations.add("scan not strictly ascending: " + previous + " then " + k);
        return;
      }
      previous = k;
      if (k.startsWith("fixed-")) {
        fixed.add(k);
      }
    }
    if (fixed.size() != FIXED) {
      violations.add("scan saw " + fixed.size() + " of " + FIXED + " fixed keys");
    }
  }

  @Override
  public void close() {
    stop.set(true);
    try {
      thread.join(60_000);
    } catch (InterruptedException e) {
      // close() may not throw InterruptedException (javac's try lint): keep the flag, fail the test
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while stopping the scan checker", e);
    } finally {
      router.close();
    }
  }
}
