package dev.rangekv.sim.partition;

import dev.rangekv.core.key.Key;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
import java.util.List;
import java.util.Map;

/**
 * Hot keys (seed 004, "Try it" 3; seed 003's split counter): the first {@code hotCount} keys get
 * {@code multiplier} times the requests of the others; measures the busiest node's request load,
 * then salts each hot key into {@code parts} sub-keys {@code "{key}#{j}"} that share its load
 * evenly (seed 003's {@code plays:{song}#{n}} format) and measures again. Hashing spreads keys, not
 * load; salting spreads one key's load over up to {@code parts} nodes.
 */
public final class SkewSimulation {
  private SkewSimulation() {}

  /** Skew parameters; {@code hotCount} keys from the front of the key list are the hot ones. */
  public record Config(int hotCount, double multiplier, int parts) {
    public Config {
      if (hotCount < 0 || !(multiplier >= 1.0) || parts < 1) {
        throw new IllegalArgumentException(
            "bad skew config hotCount=" + hotCount + " multiplier=" + multiplier + " parts=" + parts);
      }
    }
  }

  /**
   * Request load per node relative to the mean, plain and salted.
   *
   * @param busiestKeysShare the busiest node's share of keys (not load), for contrast
   * @param peakLoad busiest node's request load / mean request load
   * @param peakLoadSalted the same after salting the hot keys
   * @param hotKeyNodesSalted how many distinct nodes the first hot key's parts landed on
   */
  public record Result(String scheme, double busiestKeysShare, double peakLoad, double peakLoadSalted,
      int hotKeyNodesSalted) {}

  /**
   * Builds {@code scheme} over {@code nodes} twice: for the keys as they are, and for the salted key
   * set (cold keys, then each hot key's sub-keys), so schemes that depend on the key set (bounded
   * loads) place the sub-keys too.
   */
  public static Result run(Scheme scheme, List<Node> nodes, List<Key> keys, Config config) {
    if (config.hotCount() > keys.size()) {
      throw new IllegalArgumentException("hotCount=" + config.hotCount() + " exceeds keys=" + keys.size());
    }
    List<Key> saltedKeys = new ArrayList<>(keys.size() + config.hotCount() * (config.parts() - 1));
    List<Double> saltedWeights = new ArrayList<>(keys.size());
    List<Double> weights = new ArrayList<>(keys.size());
    for (int i = 0; i < keys.size(); i++) {
      boolean hot = i < config.hotCount();
      double w = hot ? config.multiplier() : 1.0;
      weights.add(w);
      if (!hot) {
        saltedKeys.add(keys.get(i));
        saltedWeights.add(w);
        continue;
      }
      for (int j = 0; j < config.parts(); j++) {
        saltedKeys.add(saltedKey(keys.get(i), j));
        saltedWeights.add(w / config.parts());
      }
    }
    Partitioner plain = scheme.build(nodes, keys);
    Partitioner salted = scheme.build(nodes, saltedKeys);
    Map<String, Double> plainLoad = load(plain, keys, weights);
    Map<String, Double> saltedLoad = load(salted, saltedKeys, saltedWeights);
    Map<String, Integer> keyCount = new HashMap<>();
    keys.forEach(k -> keyCount.merge(plain.owner(k).name(), 1, Integer::sum));
    int firstHotNodes = 0;
    if (config.hotCount() > 0) {
      Set<String> partNodes = new HashSet<>();
      for (int j = 0; j < config.parts(); j++) {
        partNodes.add(salted.owner(saltedKey(keys.get(0), j)).name());
      }
      firstHotNodes = partNodes.size();
    }
    double mean = weights.stream().mapToDouble(Double::doubleValue).sum() / plain.nodes().size();
    int maxKeys = keyCount.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    return new Result(scheme.name(), (double) maxKeys / keys.size(), max(plainLoad) / mean, max(saltedLoad) / mean,
        firstHotNodes);
  }

  private static Map<String, Double> load(Partitioner p, List<Key> keys, List<Double> weights) {
    Map<String, Double> m = new HashMap<>();
    for (int i = 0; i < keys.size(); i++) {
      m.merge(p.owner(keys.get(i)).name(), weights.get(i), Double::sum);
    }
    return m;
  }

  /** Sub-key {@code j} of a salted key: {@code "{key}#{j}"}. */
  public static Key saltedKey(Key key, int j) {
    return key.concat(Key.utf8("#" + j));
  }

  private static double max(Map<String, Double> m) {
    return m.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
  }
}
