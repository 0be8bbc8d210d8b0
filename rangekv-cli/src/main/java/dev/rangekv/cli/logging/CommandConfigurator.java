package dev.rangekv.cli.logging;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * Logback's first configuration step in the {@code rangekv} command: leaves the context for {@link Logs}
 * to set up, as the command's {@code main} does before anything logs. Without it Logback first
 * configures itself (looks for XML files, then builds a console pattern layout) only for {@link Logs} to
 * reset that: ~50 ms of a one-shot command's ~0.5 s start on this box. A {@code logback-test.xml} or
 * {@code logback.xml} on the class path (tests, a user's own) is still read by Logback as usual.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_NORMAL_PRIORITY)
public final class CommandConfigurator extends ContextAwareBase implements Configurator {
  @Override
  public ExecutionStatus configure(LoggerContext context) {
    ClassLoader loader = CommandConfigurator.class.getClassLoader();
    boolean xml = loader.getResource("logback-test.xml") != null || loader.getResource("logback.xml") != null
        || System.getProperty("logback.configurationFile") != null;
    return xml ? ExecutionStatus.INVOKE_NEXT_IF_ANY : ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }
}
