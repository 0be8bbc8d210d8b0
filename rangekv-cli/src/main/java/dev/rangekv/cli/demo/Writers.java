package dev.rangekv.cli.demo;

import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.RangeKvException;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyText;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The demo's writers: one thread issues asynchronous puts of order events of the current {@link Phase},
 * keeping at most {@code inFlight} unacknowledged (a semaphore), so the cluster, not a handful of
 * blocked threads, sets the pace: with enough writes in flight one range saturates. Every acknowledged
 * write is counted against the range the client routed it to (its cached descriptor), so the monitor
 * can tell how spread the writes are. Failed writes are counted, not retried: the client already
 * retried within its deadline.
 */
final class Writers {
  private final RangeKvClient client;
  private final Semaphore permits;
  private final int inFlight;
  private final AtomicReference<Map<Long, LongAdder>> window = new AtomicReference<>(new ConcurrentHashMap<>());
  private final LongAdder errors = new LongAdder();
  private final AtomicReference<String> lastError = new AtomicReference<>("");
  private static final java.util.regex.Pattern ATTEMPTS = java.util.regex.Pattern.compile(" attempts=(\\d+)");
  private static final java.util.regex.Pattern LAST = java.util.regex.Pattern.compile(" last=([A-Za-z]+)");
  private volatile Phase phase = Phase.BY_TIME;
  private volatile boolean stopped;
  private Thread driver;

  Writers(RangeKvClient client, int inFlight) {
    this.client = client;
    this.inFlight = inFlight;
    this.permits = new Semaphore(inFlight);
  }

  void start() {
    driver = new Thread(this::loop, "demo-writers");
    driver.setDaemon(true);
    driver.start();
  }

  void phase(Phase p) {
    phase = p;
  }

  private void loop() {
    SplittableRandom random = new SplittableRandom(System.nanoTime());
    long seq = 0;
    try {
      while (!stopped) {
        if (!permits.tryAcquire(100, TimeUnit.MILLISECONDS)) {
          continue;
        }
        String orderId = String.format("o%07d", random.nextInt(10_000_000));
        Key key = phase.key(System.currentTimeMillis(), orderId, seq++);
        client.putAsync(key, value(orderId, random)).whenComplete((ok, e) -> {
          permits.release();
          if (e == null) {
            window.get().computeIfAbsent(client.rangeOf(key).rangeId(), id -> new LongAdder()).increment();
          } else {
            failed(key, e);
          }
        });
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // stop() interrupts only after its bounded wait: just end
    }
  }

  /**
   * Counts a failed write and keeps a line for people: the error code, the key as {@link KeyText}
   * renders it (the client's message quotes the raw bytes, escapes and all) and the reason, which is
   * the message up to the client's description of the call.
   */
  private void failed(Key key, Throwable e) {
    errors.increment();
    Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    String m = cause instanceof RangeKvException r ? r.code() + " writing " + KeyText.render(key) + ": "
        + reason(r.getMessage()) : String.valueOf(cause);
    lastError.set(m.length() > 200 ? m.substring(0, 200) + "..." : m);
  }

  /**
   * "write outcome unknown, applied at most once: put key=... attempts=3 range=... last=NotLeader: ..." ->
   * "write outcome unknown, applied at most once (attempts=3, last NotLeader)": the reason, and how the
   * client's retries ended (the raw key and the trail stay out of the line).
   */
  static String reason(String message) {
    String m = String.valueOf(message);
    int colon = m.indexOf(": ");
    if (colon < 0) {
      return m;
    }
    java.util.List<String> how = new java.util.ArrayList<>();
    java.util.regex.Matcher attempts = ATTEMPTS.matcher(m);
    if (attempts.find()) {
      how.add("attempts=" + attempts.group(1));
    }
    java.util.regex.Matcher last = LAST.matcher(m);
    if (last.find()) {
      how.add("last " + last.group(1));
    }
    return m.substring(0, colon) + (how.isEmpty() ? "" : " (" + String.join(", ", how) + ")");
  }

  /** A fresh array per write: an async put may still hold the previous one. */
  private static byte[] value(String orderId, SplittableRandom random) {
    byte[] value = new byte[DemoSettings.VALUE_BYTES];
    byte[] head = ("{\"order\":\"" + orderId + "\",\"status\":\"paid\",\"amount\":" + random.nextInt(100_000) + ",\"pad\":\"")
        .getBytes(StandardCharsets.UTF_8);
    Arrays.fill(value, (byte) 'x');
    System.arraycopy(head, 0, value, 0, Math.min(head.length, value.length));
    return value;
  }

  /** Writes per range id since the last call (the monitor's tick), and starts a new window. */
  Map<Long, Long> drainWindow() {
    Map<Long, LongAdder> old = window.getAndSet(new ConcurrentHashMap<>());
    Map<Long, Long> out = new HashMap<>();
    old.forEach((id, n) -> out.put(id, n.sum()));
    return out;
  }

  int inFlight() {
    return inFlight;
  }

  long errors() {
    return errors.sum();
  }

  String lastError() {
    return lastError.get();
  }

  /** Stops issuing writes and waits (bounded) until every write in flight has been answered. */
  void stop() throws InterruptedException {
    stopped = true;
    if (driver != null) {
      driver.join(TimeUnit.SECONDS.toMillis(5));
    }
    if (permits.tryAcquire(inFlight, 15, TimeUnit.SECONDS)) {
      permits.release(inFlight);
    }
  }
}
