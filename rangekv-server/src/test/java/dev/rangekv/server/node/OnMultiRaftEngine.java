package dev.rangekv.server.node;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs each test of a class with nodes on the multi-raft engine ({@code @ExtendWith(OnMultiRaftEngine.class)}):
 * the engine is chosen by a system property that a node reads when it starts, so it is set before each
 * test and put back after it, leaving the next test class on the run's engine (the default, or the one
 * {@code -Drangekv.engine} chose for the whole run).
 */
public final class OnMultiRaftEngine implements BeforeEachCallback, AfterEachCallback {
  private static final ExtensionContext.Namespace SPACE = ExtensionContext.Namespace.create(OnMultiRaftEngine.class);
  private static final String UNSET = "";

  @Override
  public void beforeEach(ExtensionContext context) {
    String before = System.setProperty(EngineChoice.PROPERTY, "multiraft");
    context.getStore(SPACE).put(EngineChoice.PROPERTY, before == null ? UNSET : before);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    String before = context.getStore(SPACE).remove(EngineChoice.PROPERTY, String.class);
    if (before == null || before.equals(UNSET)) {
      System.clearProperty(EngineChoice.PROPERTY);
    } else {
      System.setProperty(EngineChoice.PROPERTY, before);
    }
  }
}
