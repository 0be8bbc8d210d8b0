package dev.rangekv.core.split;

import dev.rangekv.core.cluster.WeightedKey;
import dev.rangekv.core.key.Key;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The most balanced cut of a weighted key sample: the sampled key {@code k} (not the smallest) that
 * minimises {@code |weight(keys < k) - weight(keys >= k)|}, i.e. a weighted median, with the numbers
 * needed to judge it.
 *
 * @param splitKey the cut; empty when the sample holds fewer than two distinct keys
 * @param leftWeight sampled weight below the cut
 * @param rightWeight sampled weight at or above the cut
 * @param heaviestKey the key carrying the most weight
 * @param heaviestWeight its weight
 * @param distinctKeys number of distinct sampled keys
 */
public record LoadCut(
    Optional<Key> splitKey, double leftWeight, double rightWeight, Key heaviestKey, double heaviestWeight,
    int distinctKeys) {

  /** Total sampled weight. */
  public double total() {
    return leftWeight + rightWeight;
  }

  /** The smaller side's share of the total; 0 without a cut. */
  public double minShare() {
    double t = total();
    return t == 0 ? 0 : Math.min(leftWeight, rightWeight) / t;
  }

  /** Share of the total carried by the heaviest key. */
  public double heaviestShare() {
    double t = total();
    return t == 0 ? 0 : heaviestWeight / t;
  }

  /**
   * The most balanced cut of {@code samples} (duplicates summed).
   *
   * @throws IllegalArgumentException when {@code samples} is empty
   */
  public static LoadCut of(List<WeightedKey> samples) {
    if (samples.isEmpty()) {
      throw new IllegalArgumentException("no samples to cut");
    }
    List<WeightedKey> sorted = new ArrayList<>(samples);
    sorted.sort(Comparator.comparing(WeightedKey::key));
    List<Key> keys = new ArrayList<>();
    List<Double> weights = new ArrayList<>();
    for (WeightedKey s : sorted) {
      int last = keys.size() - 1;
      if (last >= 0 && keys.get(last).equals(s.key())) {
        weights.set(last, weights.get(last) + s.weight());
      } else {
        keys.add(s.key());
        weights.add(s.weight());
      }
    }
    double total = 0;
    int heaviest = 0;
    for (int i = 0; i < weights.size(); i++) {
      total += weights.get(i);
      if (weights.get(i) > weights.get(heaviest)) {
        heaviest = i;
      }
    }
    // Cutting before key i puts weights[0..i) on the left; try every i >= 1, keep the most balanced.
    int best = -1;
    double bestLeft = 0;
    double left = 0;
    for (int i = 1; i < keys.size(); i++) {
      left += weights.get(i - 1);
      if (best < 0 || Math.abs(total - 2 * left) < Math.abs(total - 2 * bestLeft)) {
        best = i;
        bestLeft = left;
      }
    }
    Key hk = keys.get(heaviest);
    double hw = weights.get(heaviest);
    if (best < 0) {
      return new LoadCut(Optional.empty(), 0, total, hk, hw, keys.size());
    }
    return new LoadCut(Optional.of(keys.get(best)), bestLeft, total - bestLeft, hk, hw, keys.size());
  }
}
