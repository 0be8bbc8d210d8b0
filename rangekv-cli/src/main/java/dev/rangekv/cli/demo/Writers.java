package dev.rangekv.cli.demo;

import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.RangeKvException;
import dev.rangekv.core.key.Key;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The demo's writer threads: each writes order events of the current {@link Phase} through the client
 * as fast as the cluster acknowledges them, and counts every acknowledged write against the range the
 * client routed it to (its cached descriptor), so the monitor can tell how spread the writes are.
 * Failed writes are counted, not retried: the client already retried within its deadline.
 */
final class Writers {
  private final RangeKvClient client;
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicReference<Map<Long, LongAdder>> window = new AtomicReference<>(new ConcurrentHashMap<>());
  private final LongAdder errors = new LongAdder();
  private final AtomicReference<String> lastError = new AtomicReference<>("");
  private volatile Phase phase = Phase.BY_TIME;
  private volatile boolean stopped;

  Writers(RangeKvClient client) {
    this.client = client;
  }

  void start(int count) {
    for (int i = 0; i < count; i++) {
      int writer = i;
      Thread t = new Thread(() -> loop(writer), "demo-writer-" + i);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
  }

  void phase(Phase p) {
    phase = p;
  }

  private void loop(int writer) {
    SplittableRandom random = new SplittableRandom(writer * 7919L + System.nanoTime());
    byte[] value = new byte[DemoSettings.VALUE_BYTES];
    long seq = 0;
    while (!stopped) {
      String orderId = String.format("o%07d", random.nextInt(10_000_000));
      Key key = phase.key(System.currentTimeMillis(), orderId, writer * 1_000_000_000L + seq++);
      fill(value, orderId, random);
      try {
        client.put(key, value);
        window.get().computeIfAbsent(client.rangeOf(key).rangeId(), id -> new LongAdder()).increment();
      } catch (RangeKvException e) {
        errors.increment();
        String m = e.code() + ": " + e.getMessage();
        lastError.set(m.length() > 200 ? m.substring(0, 200) + "..." : m);
      }
    }
  }

  private static void fill(byte[] value, String orderId, SplittableRandom random) {
    byte[] head = ("{\"order\":\"" + orderId + "\",\"status\":\"paid\",\"amount\":" + random.nextInt(100_000) + ",\"pad\":\"")
        .getBytes(StandardCharsets.UTF_8);
    Arrays.fill(value, (byte) 'x');
    System.arraycopy(head, 0, value, 0, Math.min(head.length, value.length));
  }

  /** Writes per range id since the last call (the monitor's tick), and starts a new window. */
  Map<Long, Long> drainWindow() {
    Map<Long, LongAdder> old = window.getAndSet(new ConcurrentHashMap<>());
    Map<Long, Long> out = new java.util.HashMap<>();
    old.forEach((id, n) -> out.put(id, n.sum()));
    return out;
  }

  long errors() {
    return errors.sum();
  }

  String lastError() {
    return lastError.get();
  }

  /** Stops the writers and waits (bounded) for their in-flight writes. */
  void stop() throws InterruptedException {
    stopped = true;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    for (Thread t : threads) {
      t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    }
  }
}
