package dev.rangekv.core.cluster;

import java.util.Objects;

/**
 * One number behind a decision, e.g. {@code bytes=70000000}.
 *
 * @param name a short lowercase name, as used in logs ({@code maxBytes}, {@code leftShare})
 * @param value the value; integers are rendered without a fraction
 */
public record Figure(String name, double value) {

  public Figure {
    Objects.requireNonNull(name, "name");
  }

  @Override
  public String toString() {
    if (value == Math.rint(value) && Math.abs(value) < 1e15) {
      return name + "=" + (long) value;
    }
    return name + "=" + String.format(java.util.Locale.ROOT, "%.3f", value);
  }
}
