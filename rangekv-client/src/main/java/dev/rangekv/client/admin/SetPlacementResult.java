package dev.rangekv.client.admin;

import dev.rangekv.core.cluster.PlacementRule;
import java.util.Objects;

/**
 * A placement rule as the meta range stored it.
 *
 * @param rule the rule with its version
 * @param setVersion the rule set's version after the change
 * @param warning why the live nodes cannot meet it now; empty when they can
 */
public record SetPlacementResult(PlacementRule rule, long setVersion, String warning) {
  public SetPlacementResult {
    Objects.requireNonNull(rule, "rule");
    Objects.requireNonNull(warning, "warning");
  }
}
