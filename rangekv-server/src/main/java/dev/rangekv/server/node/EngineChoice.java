package dev.rangekv.server.node;

import java.util.Locale;

/**
 * Which consensus engine runs a node's range groups and its meta range's group: the Ratis adapter
 * (default) or the experimental node-wide multi-raft engine ({@code server.multiraft}), chosen by the
 * system property {@value #PROPERTY} ({@code rangekv start --engine}). Temporary: one engine is to remain
 * (docs/decisions/0013). On the multi-raft engine the node still starts a Ratis server, which then runs
 * no group.
 */
public enum EngineChoice {
  RATIS,
  MULTIRAFT;

  public static final String PROPERTY = "rangekv.engine";

  /** The choice in {@code System.getProperty(PROPERTY)}; Ratis when unset. */
  public static EngineChoice current() {
    return parse(System.getProperty(PROPERTY, "ratis"));
  }

  /** {@code ratis} or {@code multiraft}; anything else is refused. */
  public static EngineChoice parse(String text) {
    return switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "ratis" -> RATIS;
      case "multiraft" -> MULTIRAFT;
      default -> throw new IllegalArgumentException("engine must be ratis or multiraft, got '" + text + "'");
    };
  }
}
