package dev.rangekv.bench.cluster;

import dev.rangekv.client.ClientOptions;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.core.key.Key;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Wake latency of dormant ranges against a running cluster whose ranges start at {@code r000001},
 * {@code r000002}, ... (presplit there). {@code load SEEDS N} writes {@code rNNNNNN/x} into each of
 * the N ranges ({@code load SEEDS FROM TO}: into ranges FROM..TO-1); {@code wake SEEDS N SAMPLES} gets that key from SAMPLES distinct random ranges, one at a
 * time, and prints the latency percentiles (run it when every range is dormant: each get is then the
 * first request to a dormant range). {@code touch SEEDS N RANGES THREADS SECONDS} picks RANGES distinct
 * random ranges of the N and runs THREADS closed-loop clients for SECONDS, each a put then a get of a
 * random key {@code rNNNNNN/kK} (K < 1000) in one of them, and prints operations per second and latency
 * percentiles (the other ranges stay dormant); a put to each chosen range first wakes them all. Insecure clusters only.
 */
public final class WakeLatency {
  private WakeLatency() {}

  static Key key(int range) {
    return Key.utf8(String.format("r%06d/x", range));
  }

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    List<String> seeds = Arrays.asList(args[1].split(","));
    int ranges = Integer.parseInt(args[2]);
    try (RangeKvClient client = RangeKvClient.connect(seeds, ClientOptions.defaults().withTimeout(Duration.ofSeconds(60)))) {
      if (mode.equals("load")) {
        int to = args.length > 3 ? Integer.parseInt(args[3]) : ranges;
        for (int i = args.length > 3 ? ranges : 0; i < to; i++) {
          client.put(key(i), ("v" + i).getBytes(StandardCharsets.UTF_8));
        }
        System.out.println("loaded " + ranges + " keys");
        return;
      }
      if (mode.equals("touch")) {
        touch(client, ranges, Integer.parseInt(args[3]), Integer.parseInt(args[4]), Integer.parseInt(args[5]));
        return;
      }
      int samples = Integer.parseInt(args[3]);
      List<Integer> order = new ArrayList<>();
      for (int i = 0; i < ranges; i++) {
        order.add(i);
      }
      Collections.shuffle(order, new Random(42));
      long[] millis = new long[Math.min(samples, ranges)];
      for (int s = 0; s < millis.length; s++) {
        int range = order.get(s);
        long t0 = System.nanoTime();
        byte[] v = client.get(key(range)).orElseThrow(() -> new IllegalStateException("lost key of range " + range));
        millis[s] = (System.nanoTime() - t0) / 1_000_000;
        if (!new String(v, StandardCharsets.UTF_8).equals("v" + range)) {
          throw new IllegalStateException("wrong value for range " + range);
        }
      }
      Arrays.sort(millis);
      System.out.printf("wake gets=%d p50=%d ms p90=%d ms p99=%d ms max=%d ms%n", millis.length,
          millis[millis.length / 2], millis[(int) (millis.length * 0.9)], millis[(int) Math.min(millis.length - 1,
              Math.ceil(millis.length * 0.99) - 1)], millis[millis.length - 1]);
    }
  }

  private static void touch(RangeKvClient client, int ranges, int touched, int threads, int seconds)
      throws InterruptedException {
    List<Integer> order = new ArrayList<>();
    for (int i = 1; i < ranges; i++) {
      order.add(i);
    }
    Collections.shuffle(order, new Random(7));
    List<Integer> chosen = List.copyOf(order.subList(0, Math.min(touched, order.size())));
    long w0 = System.nanoTime();
    for (int range : chosen) { // wakes them all first: the measured part is the awake ranges' throughput
      client.put(Key.utf8(String.format("r%06d/k000", range)), new byte[] {1});
    }
    System.out.printf("woke %d ranges in %d ms%n", chosen.size(), (System.nanoTime() - w0) / 1_000_000);
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    List<long[]> perThread = new ArrayList<>();
    List<Thread> workers = new ArrayList<>();
    java.util.concurrent.atomic.AtomicLong errors = new java.util.concurrent.atomic.AtomicLong();
    for (int t = 0; t < threads; t++) {
      long[] lat = new long[500_000];
      perThread.add(lat);
      int seed = t;
      Thread w = new Thread(() -> {
        Random r = new Random(seed);
        int n = 0;
        while (System.nanoTime() < end && n < lat.length - 1) {
          int range = chosen.get(r.nextInt(chosen.size()));
          Key k = Key.utf8(String.format("r%06d/k%03d", range, r.nextInt(1000)));
          byte[] v = ("t" + n).getBytes(StandardCharsets.UTF_8);
          long t0 = System.nanoTime();
          try {
            client.put(k, v);
            lat[++n] = System.nanoTime() - t0;
            t0 = System.nanoTime();
            client.get(k);
            lat[++n] = System.nanoTime() - t0;
          } catch (RuntimeException e) {
            errors.incrementAndGet();
          }
        }
        lat[0] = n;
      });
      workers.add(w);
      w.start();
    }
    for (Thread w : workers) {
      w.join();
    }
    int total = 0;
    for (long[] lat : perThread) {
      total += (int) lat[0];
    }
    long[] all = new long[total];
    int at = 0;
    for (long[] lat : perThread) {
      System.arraycopy(lat, 1, all, at, (int) lat[0]);
      at += (int) lat[0];
    }
    Arrays.sort(all);
    System.out.printf("touch ranges=%d threads=%d seconds=%d ops=%d ops/s=%.0f p50=%.1f ms p99=%.1f ms max=%.1f ms errors=%d%n",
        chosen.size(), threads, seconds, total, total / (double) seconds, all[total / 2] / 1e6,
        all[(int) Math.min(total - 1, Math.ceil(total * 0.99) - 1)] / 1e6, all[total - 1] / 1e6, errors.get());
  }
}
