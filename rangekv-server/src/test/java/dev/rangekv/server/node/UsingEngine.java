package dev.rangekv.server.node;

import java.util.Locale;

/**
 * For a test that runs on each engine ({@code @EnumSource(EngineChoice.class)}): the nodes it starts
 * inside {@code try (UsingEngine e = UsingEngine.of(engine))} run their range groups on {@code engine};
 * closing it puts the run's engine back (the default, or the one {@code -Drangekv.engine} chose).
 */
record UsingEngine(String before) implements AutoCloseable {
  static UsingEngine of(EngineChoice engine) {
    return new UsingEngine(System.setProperty(EngineChoice.PROPERTY, engine.name().toLowerCase(Locale.ROOT)));
  }

  @Override
  public void close() {
    if (before == null) {
      System.clearProperty(EngineChoice.PROPERTY);
    } else {
      System.setProperty(EngineChoice.PROPERTY, before);
    }
  }
}
