package dev.rangekv.cli.logging;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * Puts the test logging (logback-test.xml) back after each test of a class that reconfigured Logback
 * the way a node does ({@code @ExtendWith(RestoresTestLogging.class)}), so later tests log as usual.
 */
final class RestoresTestLogging implements AfterEachCallback {
  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
    ctx.reset();
    new ContextInitializer(ctx).autoConfig();
  }
}
