package dev.rangekv.core.placement;

import java.util.Objects;

/**
 * One way a range breaks its placement rule.
 *
 * @param kind {@code forbidden-node}, {@code replica-count}, {@code spread} or {@code leader}
 * @param detail one line for people, e.g. {@code "replica on n4: zone us-1 not in [eu-1]"}
 */
public record Violation(String kind, String detail) {
  public Violation {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(detail, "detail");
  }

  @Override
  public String toString() {
    return detail;
  }
}
