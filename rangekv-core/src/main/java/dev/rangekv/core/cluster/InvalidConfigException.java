package dev.rangekv.core.cluster;

import java.util.List;

/** A {@link ControllerConfig} the controller refuses; each problem names the settings involved. */
public final class InvalidConfigException extends IllegalArgumentException {
  private final List<String> problems;

  public InvalidConfigException(List<String> problems) {
    super("invalid controller config: " + String.join("; ", problems));
    this.problems = List.copyOf(problems);
  }

  /** One message per broken rule, naming the settings by their config names. */
  public List<String> problems() {
    return problems;
  }
}
