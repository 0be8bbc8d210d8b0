package dev.rangekv.core.partition;

import dev.rangekv.core.key.Key;
import java.util.HashMap;
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

  public static Result run(Partitioner p, String schemeName, List<Key> keys, Config config) {
    if (config.hotCount() > keys.size()) {
      throw new IllegalArgumentException("hotCount=" + config.hotCount() + " exceeds keys=" + keys.size());
    }
    Map<String, Double> plain = new HashMap<>();
    Map<String, Double> salted = new HashMap<>();
    Map<String, Integer> keyCount = new HashMap<>();
    int firstHotNodes = 0;
    for (int i = 0; i < keys.size(); i++) {
      Key k = keys.get(i);
      String owner = p.owner(k).name();
      keyCount.merge(owner, 1, Integer::sum);
      boolean hot = i < config.hotCount();
      double w = hot ? config.multiplier() : 1.0;
      plain.merge(owner, w, Double::sum);
      if (!hot) {
        salted.merge(owner, w, Double::sum);
        continue;
      }
      java.util.Set<String> partNodes = new java.util.HashSet<>();
      for (int j = 0; j < config.parts(); j++) {
        String partOwner = p.owner(saltedKey(k, j)).name();
        partNodes.add(partOwner);
        salted.merge(partOwner, w / config.parts(), Double::sum);
      }
      if (i == 0) {
        firstHotNodes = partNodes.size();
      }
    }
    int n = p.nodes().size();
    double total = plain.values().stream().mapToDouble(Double::doubleValue).sum();
    double mean = total / n;
    int maxKeys = keyCount.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    return new Result(schemeName, (double) maxKeys / keys.size(), max(plain) / mean, max(salted) / mean,
        firstHotNodes);
  }

  /** Sub-key {@code j} of a salted key: {@code "{key}#{j}"}. */
  public static Key saltedKey(Key key, int j) {
    return key.concat(Key.utf8("#" + j));
  }

  private static double max(Map<String, Double> m) {
    return m.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
  }
}
