package dev.rangekv.core.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Why a policy decided what it did: a fixed reason text plus the numbers behind it, so the event log
 * and the dashboard can answer "why" for every range, including for declined decisions.
 *
 * @param reason static text naming the rule, e.g. {@code "size above max-bytes"}
 * @param figures the inputs and thresholds the rule compared, in a readable order
 */
public record Explanation(String reason, List<Figure> figures) {

  public Explanation {
    Objects.requireNonNull(reason, "reason");
    figures = List.copyOf(figures);
  }

  /** Starts an explanation with {@code reason}; add figures with {@link Builder#with}. */
  public static Builder of(String reason) {
    return new Builder(reason);
  }

  /** The figure called {@code name}, if present. */
  public Optional<Double> figure(String name) {
    return figures.stream().filter(f -> f.name().equals(name)).map(Figure::value).findFirst();
  }

  /** Renders as {@code reason (name=value, ...)}: the text written to logs and the event log. */
  @Override
  public String toString() {
    if (figures.isEmpty()) {
      return reason;
    }
    StringBuilder sb = new StringBuilder(reason).append(" (");
    for (int i = 0; i < figures.size(); i++) {
      sb.append(i == 0 ? "" : ", ").append(figures.get(i));
    }
    return sb.append(')').toString();
  }

  /** Collects figures; single use. */
  public static final class Builder {
    private final String reason;
    private final List<Figure> figures = new ArrayList<>();

    private Builder(String reason) {
      this.reason = reason;
    }

    public Builder with(String name, double value) {
      figures.add(new Figure(name, value));
      return this;
    }

    public Explanation build() {
      return new Explanation(reason, figures);
    }
  }
}
