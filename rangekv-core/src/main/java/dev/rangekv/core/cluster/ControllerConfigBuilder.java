package dev.rangekv.core.cluster;

/**
 * Builds a {@link ControllerConfig} from the defaults. Settings derived from others (min-bytes from
 * max-bytes, merge-qps and hotspot-min-qps from split-qps) follow them unless set explicitly. Not
 * thread-safe; validation happens in {@link #build()}.
 */
public final class ControllerConfigBuilder {
  private long maxBytes = 64L << 20;
  private Long minBytes;
  private double splitQps = 2500;
  private Double mergeQps;
  private int loadSplitIntervals = 3;
  private double loadSplitMinShare = 0.2;
  private int loadSplitMinSamples = 100;
  private double appendShare = 0.9;
  private long splitCooldownMillis = 10 * 60_000L;
  private long tickMillis = 10_000;
  private int maxMovesInFlight = 2;
  private int maxRepairsInFlight = 4;
  private int maxLeaderTransfers = 4;
  private double balanceTolerance = 0.1;
  private double balanceMinGain = 0.5;
  private long deadNodeTimeoutMillis = 60_000;
  private int replicationFactor = 3;
  private int hotspotWindow = 10;
  private double hotspotShare = 0.8;
  private double hotKeyShare = 0.5;
  private Double hotspotMinQps;

  ControllerConfigBuilder() {}

  public ControllerConfigBuilder maxBytes(long v) { maxBytes = v; return this; }
  public ControllerConfigBuilder minBytes(long v) { minBytes = v; return this; }
  public ControllerConfigBuilder splitQps(double v) { splitQps = v; return this; }
  public ControllerConfigBuilder mergeQps(double v) { mergeQps = v; return this; }
  public ControllerConfigBuilder loadSplitIntervals(int v) { loadSplitIntervals = v; return this; }
  public ControllerConfigBuilder loadSplitMinShare(double v) { loadSplitMinShare = v; return this; }
  public ControllerConfigBuilder loadSplitMinSamples(int v) { loadSplitMinSamples = v; return this; }
  public ControllerConfigBuilder appendShare(double v) { appendShare = v; return this; }
  public ControllerConfigBuilder splitCooldownMillis(long v) { splitCooldownMillis = v; return this; }
  public ControllerConfigBuilder tickMillis(long v) { tickMillis = v; return this; }
  public ControllerConfigBuilder maxMovesInFlight(int v) { maxMovesInFlight = v; return this; }
  public ControllerConfigBuilder maxRepairsInFlight(int v) { maxRepairsInFlight = v; return this; }
  public ControllerConfigBuilder maxLeaderTransfers(int v) { maxLeaderTransfers = v; return this; }
  public ControllerConfigBuilder balanceTolerance(double v) { balanceTolerance = v; return this; }
  public ControllerConfigBuilder balanceMinGain(double v) { balanceMinGain = v; return this; }
  public ControllerConfigBuilder deadNodeTimeoutMillis(long v) { deadNodeTimeoutMillis = v; return this; }
  public ControllerConfigBuilder replicationFactor(int v) { replicationFactor = v; return this; }
  public ControllerConfigBuilder hotspotWindow(int v) { hotspotWindow = v; return this; }
  public ControllerConfigBuilder hotspotShare(double v) { hotspotShare = v; return this; }
  public ControllerConfigBuilder hotKeyShare(double v) { hotKeyShare = v; return this; }
  public ControllerConfigBuilder hotspotMinQps(double v) { hotspotMinQps = v; return this; }

  /**
   * Sets one setting by its config name (as listed on {@link ControllerConfig}, e.g. {@code
   * range.max-bytes}); durations are in milliseconds. For config files and command-line flags.
   *
   * @throws IllegalArgumentException for an unknown name or a value that does not parse
   */
  public ControllerConfigBuilder set(String name, String value) {
    try {
      switch (name) {
        case "range.max-bytes" -> maxBytes(Long.parseLong(value));
        case "range.min-bytes" -> minBytes(Long.parseLong(value));
        case "split.qps" -> splitQps(Double.parseDouble(value));
        case "merge.qps" -> mergeQps(Double.parseDouble(value));
        case "split.load-intervals" -> loadSplitIntervals(Integer.parseInt(value));
        case "split.load-min-share" -> loadSplitMinShare(Double.parseDouble(value));
        case "split.load-min-samples" -> loadSplitMinSamples(Integer.parseInt(value));
        case "split.append-share" -> appendShare(Double.parseDouble(value));
        case "merge.split-cooldown" -> splitCooldownMillis(Long.parseLong(value));
        case "controller.tick" -> tickMillis(Long.parseLong(value));
        case "rebalance.max-moves" -> maxMovesInFlight(Integer.parseInt(value));
        case "repair.max-moves" -> maxRepairsInFlight(Integer.parseInt(value));
        case "rebalance.max-leader-transfers" -> maxLeaderTransfers(Integer.parseInt(value));
        case "rebalance.tolerance" -> balanceTolerance(Double.parseDouble(value));
        case "rebalance.min-gain" -> balanceMinGain(Double.parseDouble(value));
        case "node.dead-timeout" -> deadNodeTimeoutMillis(Long.parseLong(value));
        case "range.replicas" -> replicationFactor(Integer.parseInt(value));
        case "hotspot.window" -> hotspotWindow(Integer.parseInt(value));
        case "hotspot.share" -> hotspotShare(Double.parseDouble(value));
        case "hotspot.key-share" -> hotKeyShare(Double.parseDouble(value));
        case "hotspot.min-qps" -> hotspotMinQps(Double.parseDouble(value));
        default -> throw new IllegalArgumentException("unknown controller setting " + name);
      }
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("setting " + name + " needs a number, got '" + value + "'", e);
    }
    return this;
  }

  /** Validates and builds; throws {@link InvalidConfigException} naming every bad setting. */
  public ControllerConfig build() {
    return new ControllerConfig(maxBytes, minBytes != null ? minBytes : maxBytes / 4, splitQps,
        mergeQps != null ? mergeQps : splitQps / 10, loadSplitIntervals, loadSplitMinShare,
        loadSplitMinSamples, appendShare, splitCooldownMillis, tickMillis, maxMovesInFlight,
        maxRepairsInFlight, maxLeaderTransfers, balanceTolerance, balanceMinGain, deadNodeTimeoutMillis, replicationFactor,
        hotspotWindow, hotspotShare, hotKeyShare, hotspotMinQps != null ? hotspotMinQps : splitQps / 4);
  }
}
