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
 * first request to a dormant range). Insecure clusters only.
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
}
