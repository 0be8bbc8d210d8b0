package dev.rangekv.server.node;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs each test of a class with nodes on the multi-raft engine ({@code @ExtendWith(OnMultiRaftEngine.class)}):
 * the engine is chosen by a system property that a node reads when it starts, so it is set before each
 * test and cleared after it, leaving the next test class on the default engine.
 */
public final class OnMultiRaftEngine implements BeforeEachCallback, AfterEachCallback {
  @Override
  public void beforeEach(ExtensionContext context) {
    System.setProperty(EngineChoice.PROPERTY, "multiraft");
  }

  @Override
  public void afterEach(ExtensionContext context) {
    System.clearProperty(EngineChoice.PROPERTY);
  }
}
