package dev.rangekv.client.it;

import dev.rangekv.client.routing.CacheFold;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.RangeMap;
import dev.rangekv.server.move.NodeAdminClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A background loop of admin RPCs that reshapes a {@link TestCluster}'s ranges until a deadline: splits
 * at keys of the data set, merges of neighbours (first moving the right one's odd replica so both have
 * the same replica set, as a merge requires) and replica moves to the one node a range is not on. Keeps
 * the number of ranges between 3 and 9 so merges and splits both keep happening. The first failure ends
 * the loop and is kept for the test to assert on.
 */
final class Churner implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Churner.class);

  private final TestCluster tc;
  private final NodeAdminClient mover;
  private final IntFunction<Key> splitKeys;
  private final int keyCount;
  private final SplittableRandom random;
  private final Thread thread;
  final AtomicInteger splits = new AtomicInteger();
  final AtomicInteger merges = new AtomicInteger();
  final AtomicInteger moves = new AtomicInteger();
  final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final List<String> journal = java.util.Collections.synchronizedList(new ArrayList<>());
  private final long t0 = System.nanoTime();

  Churner(TestCluster tc, IntFunction<Key> splitKeys, int keyCount, SplittableRandom random, Duration runFor) {
    this.tc = tc;
    this.mover = new NodeAdminClient(tc.seeds(), Duration.ofSeconds(60));
    this.splitKeys = splitKeys;
    this.keyCount = keyCount;
    this.random = random;
    long end = System.nanoTime() + runFor.toNanos();
    this.thread = new Thread(() -> {
      try {
        while (System.nanoTime() < end) {
          step();
        }
      } catch (Throwable t) {
        failure.set(t);
      }
      log.info("churn done {}", summary());
    }, "churner");
  }

  /** What the loop did and how long each step took, for failure messages. */
  String summary() {
    synchronized (journal) {
      return "splits=" + splits + " merges=" + merges + " moves=" + moves + " failure=" + failure.get()
          + " journal=" + journal;
    }
  }

  private void note(String what, long startNanos) {
    journal.add(String.format("+%.1fs %s took=%dms", (startNanos - t0) / 1e9, what,
        (System.nanoTime() - startNanos) / 1_000_000));
  }

  void start() {
    thread.start();
  }

  boolean isAlive() {
    return thread.isAlive();
  }

  void join() throws InterruptedException {
    thread.join();
  }

  private void step() {
    RangeMap map = tc.ranges();
    List<RangeDescriptor> ranges = map.ranges();
    if (ranges.stream().anyMatch(CacheFold::isPlaceholder)) {
      idle(); // a new child's group is not running everywhere yet: nothing to plan on
      return;
    }
    int n = ranges.size();
    int op = n < 3 ? 0 : n > 9 ? 1 : random.nextInt(3);
    switch (op) {
      case 0 -> {
        long t = System.nanoTime();
        Key at = splitKeys.apply(random.nextInt(keyCount));
        if (tc.split(at) != null) {
          splits.incrementAndGet();
          note("split at " + at, t);
        }
      }
      case 1 -> {
        int i = random.nextInt(n - 1);
        merge(ranges.get(i), ranges.get(i + 1));
      }
      default -> {
        RangeDescriptor d = ranges.get(random.nextInt(n));
        String from = d.replicas().get(random.nextInt(d.replicas().size()));
        String to = spare(d.replicas());
        long t = System.nanoTime();
        mover.move(d.rangeId(), from, address(to), 0);
        moves.incrementAndGet();
        note("move r" + d.rangeId() + " " + from + "->" + to, t);
      }
    }
  }

  private void merge(RangeDescriptor left, RangeDescriptor right) {
    Set<String> extra = new HashSet<>(right.replicas());
    extra.removeAll(left.replicas());
    Set<String> missing = new HashSet<>(left.replicas());
    missing.removeAll(right.replicas());
    if (extra.size() == 1 && missing.size() == 1) {
      long t = System.nanoTime();
      mover.move(right.rangeId(), extra.iterator().next(), address(missing.iterator().next()), 0);
      moves.incrementAndGet();
      note("co-locating move r" + right.rangeId() + " " + extra + "->" + missing, t);
    } else if (!extra.isEmpty() || !missing.isEmpty()) {
      throw new IllegalStateException("replica sets of " + left + " and " + right + " differ by more than one node");
    }
    long t = System.nanoTime();
    mover.merge(left.rangeId(), right.rangeId());
    merges.incrementAndGet();
    note("merge r" + left.rangeId() + "+r" + right.rangeId(), t);
  }

  /** A short pause of the loop when it has nothing to do yet (its deadline bounds it): not a wait for a condition. */
  private static void idle() {
    try {
      Thread.sleep(5);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The node (of 4) that {@code replicas} (3) leave out. */
  private String spare(List<String> replicas) {
    List<String> all = new ArrayList<>();
    for (int i = 0; i < tc.cluster.size(); i++) {
      all.add(tc.cluster.config(i).nodeId());
    }
    all.removeAll(replicas);
    if (all.size() != 1) {
      throw new IllegalStateException("expected exactly one node outside " + replicas + ", got " + all);
    }
    return all.get(0);
  }

  private String address(String nodeId) {
    return tc.cluster.config(tc.cluster.indexOf(nodeId)).clientAddress();
  }

  @Override
  public void close() {
    try {
      thread.join();
    } catch (InterruptedException e) {
      // close() may not throw InterruptedException (javac's try lint): keep the flag, fail the test
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while stopping the churner", e);
    } finally {
      mover.close();
    }
  }
}
