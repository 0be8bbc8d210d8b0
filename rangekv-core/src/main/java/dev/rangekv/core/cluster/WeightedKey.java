package dev.rangekv.core.cluster;

import dev.rangekv.core.key.Key;
import java.util.Objects;

/**
 * A sampled request key with the load it stands for (requests, or an unbiased estimate of them when it
 * comes from a sampler).
 *
 * @param key the request's key
 * @param weight positive and finite
 */
public record WeightedKey(Key key, double weight) {

  public WeightedKey {
    Objects.requireNonNull(key, "key");
    if (!(weight > 0) || Double.isInfinite(weight)) {
      throw new IllegalArgumentException("weight must be positive and finite, got " + weight);
    }
  }
}
