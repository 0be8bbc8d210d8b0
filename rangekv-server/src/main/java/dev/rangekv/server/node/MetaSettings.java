package dev.rangekv.server.node;

import dev.rangekv.core.cluster.ControllerConfig;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How a node takes part in the meta range: whether it heartbeats and may run the controller (with
 * which thresholds), its failure zone, and the client addresses of nodes to reach the meta range
 * through when it hosts no meta replica itself.
 *
 * @param controller the controller's thresholds; empty = a node of a cluster without a meta range
 *     (moves, splits and merges only by hand, as in the low-level tests)
 * @param zone failure domain reported in heartbeats; empty when zones are not used
 * @param seeds client addresses of other nodes (any of them answers or redirects meta calls)
 * @param moveBytesPerSecond span snapshot bandwidth of each move the controller starts (0 = unlimited)
 * @param labels node labels beyond the zone ({@code region=eu}), matched by placement rules
 */
public record MetaSettings(Optional<ControllerConfig> controller, String zone, List<String> seeds,
    long moveBytesPerSecond, Map<String, String> labels) {
  /** No meta range, no heartbeats, no controller. */
  public static final MetaSettings DISABLED = new MetaSettings(Optional.empty(), "", List.of(), 0);
  /** Default bandwidth of a controller move: enough to move a 64 MiB range in about 2 s. */
  public static final long DEFAULT_MOVE_BYTES_PER_SECOND = 32L << 20;

  public MetaSettings {
    Objects.requireNonNull(controller, "controller");
    Objects.requireNonNull(zone, "zone");
    seeds = List.copyOf(seeds);
    labels = Map.copyOf(labels);
    if (moveBytesPerSecond < 0) {
      throw new IllegalArgumentException("moveBytesPerSecond must be >= 0, got " + moveBytesPerSecond);
    }
  }

  /** Settings without labels. */
  public MetaSettings(Optional<ControllerConfig> controller, String zone, List<String> seeds, long moveBytesPerSecond) {
    this(controller, zone, seeds, moveBytesPerSecond, Map.of());
  }

  public MetaSettings withLabels(Map<String, String> newLabels) {
    return new MetaSettings(controller, zone, seeds, moveBytesPerSecond, newLabels);
  }

  public static MetaSettings enabled(ControllerConfig controller, List<String> seeds) {
    return new MetaSettings(Optional.of(controller), "", seeds, DEFAULT_MOVE_BYTES_PER_SECOND);
  }

  public MetaSettings withMoveBytesPerSecond(long bytesPerSecond) {
    return new MetaSettings(controller, zone, seeds, bytesPerSecond, labels);
  }

  public boolean isEnabled() {
    return controller.isPresent();
  }

  public MetaSettings withZone(String newZone) {
    return new MetaSettings(controller, newZone, seeds, moveBytesPerSecond, labels);
  }

  public MetaSettings withSeeds(List<String> newSeeds) {
    return new MetaSettings(controller, zone, newSeeds, moveBytesPerSecond, labels);
  }
}
