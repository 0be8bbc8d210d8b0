package dev.rangekv.core.hotspot;

import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.cluster.WeightedKey;
import dev.rangekv.core.split.LoadCut;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Hot-key detection (seed 003 "hot keys"): a range with at least {@code hotspot.min-qps} load and
 * {@code split.load-min-samples} sampled keys, where one key carries at least {@code
 * hotspot.key-share} of the sampled load. No split can divide one key, so the alert names it and
 * suggests caching, write-sharding or batching. Stateless.
 */
public final class HotKeyDetector {
  private HotKeyDetector() {}

  public static List<HotspotAlert.HotKey> detect(List<RangeStats> ranges, ControllerConfig config) {
    List<HotspotAlert.HotKey> out = new ArrayList<>();
    for (RangeStats r : ranges) {
      detect(r, config).ifPresent(out::add);
    }
    return out;
  }

  public static Optional<HotspotAlert.HotKey> detect(RangeStats r, ControllerConfig config) {
    List<WeightedKey> samples = r.sampledKeys().stream().filter(s -> r.range().contains(s.key())).toList();
    if (r.qps() < config.hotspotMinQps() || samples.size() < config.loadSplitMinSamples()) {
      return Optional.empty();
    }
    LoadCut cut = LoadCut.of(samples);
    if (cut.heaviestShare() < config.hotKeyShare()) {
      return Optional.empty();
    }
    String suggestion = "one key carries most of the range's load and no split can divide it: cache its reads"
        + " in front of the range; for a counter, write-shard it into sub-keys that readers sum; or batch its"
        + " writes";
    Explanation why = Explanation.of("one key carries most of the range's load")
        .with("keyShare", cut.heaviestShare()).with("minKeyShare", config.hotKeyShare())
        .with("qps", r.qps()).with("samples", samples.size()).build();
    return Optional.of(new HotspotAlert.HotKey(r.rangeId(), cut.heaviestKey(), suggestion, why));
  }
}
