package dev.rangekv.core.sampling;

import dev.rangekv.core.cluster.WeightedKey;
import dev.rangekv.core.key.Key;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.random.RandomGenerator;

/**
 * Priority sampling (Duffield, Lund and Thorup, JACM 2007) of weighted request keys: keeps at most
 * {@code capacity} keys, and reports each with an unbiased estimate of the weight it stands for, so the
 * sum of the estimates over any key span estimates that span's load.
 *
 * <p>Each offer draws {@code u} uniform in (0, 1] and gets priority {@code w / u}; the {@code capacity +
 * 1} highest priorities are kept. With threshold {@code tau} = the lowest kept priority, each of the
 * other kept keys is reported with weight {@code max(w, tau)}. Until more than {@code capacity} keys
 * arrive the sample is exact. Cost: O(log capacity) per offer, O(capacity) memory.
 *
 * <p>Not thread-safe: the caller gives each thread its own sampler or guards one with a lock; the
 * random source is passed in, so a fixed seed replays a run.
 */
public final class KeySampler {
  private record Entry(Key key, double weight, double priority) {}

  private final int capacity;
  private final RandomGenerator random;
  private final PriorityQueue<Entry> kept;
  private long offered;
  private double totalWeight;

  public KeySampler(int capacity, RandomGenerator random) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be >= 1, got " + capacity);
    }
    this.capacity = capacity;
    this.random = Objects.requireNonNull(random, "random");
    this.kept = new PriorityQueue<>(capacity + 1, (a, b) -> Double.compare(a.priority, b.priority));
  }

  /** Records one request to {@code key} carrying {@code weight} (1 per request, or bytes, or cost). */
  public void offer(Key key, double weight) {
    Objects.requireNonNull(key, "key");
    if (!(weight > 0) || Double.isInfinite(weight)) {
      throw new IllegalArgumentException("weight must be positive and finite, got " + weight);
    }
    offered++;
    totalWeight += weight;
    double u = 1.0 - random.nextDouble(); // (0, 1]: never divides by zero
    double priority = weight / u;
    if (kept.size() <= capacity) {
      kept.add(new Entry(key, weight, priority));
    } else if (priority > kept.peek().priority) {
      kept.poll();
      kept.add(new Entry(key, weight, priority));
    }
  }

  /** Offers seen since the last {@link #reset()}. */
  public long offered() {
    return offered;
  }

  /** Exact total weight offered since the last {@link #reset()}. */
  public double totalWeight() {
    return totalWeight;
  }

  /** The sample with estimated weights, in no particular order; at most {@code capacity} entries. */
  public List<WeightedKey> sample() {
    List<WeightedKey> out = new ArrayList<>(capacity);
    if (kept.size() <= capacity) {
      kept.forEach(e -> out.add(new WeightedKey(e.key, e.weight)));
      return out;
    }
    Entry threshold = kept.peek();
    for (Entry e : kept) {
      if (e != threshold) {
        out.add(new WeightedKey(e.key, Math.max(e.weight, threshold.priority)));
      }
    }
    return out;
  }

  /** Returns the sample and starts a new interval. */
  public List<WeightedKey> drain() {
    List<WeightedKey> out = sample();
    reset();
    return out;
  }

  public void reset() {
    kept.clear();
    offered = 0;
    totalWeight = 0;
  }
}
