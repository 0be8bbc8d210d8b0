package dev.rangekv.cli.logging;

import java.util.List;
import java.util.Locale;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Sets up logging for one run of the {@code rangekv} command, before anything logs: a node process logs
 * at info, every other command only warnings (errors for the demo, whose output is its live lines);
 * {@code --verbose} means info, and {@code -Drangekv.log.level=LEVEL} wins.
 *
 * <p>The full jar (nodes, the demo, tests) logs through Logback ({@link Logs}). The thin jar that the
 * launcher runs for one-shot commands holds no SLF4J and no Logback: setting Logback up took 110-140 ms of
 * a ~600 ms {@code rangekv get} on this box, and only Netty logs through SLF4J there; without SLF4J on
 * the class path Netty, like gRPC, logs through java.util.logging, which this class sets to the same
 * level with one dated line per record on stderr.
 */
public final class CommandLogs {
  /** Commands whose own log lines are part of their output (a node process). */
  private static final List<String> LOGGING_COMMANDS = List.of("start");
  /** ISO-8601 with date and zone, level, logger, message, then the stack trace if any (JUL's fields). */
  private static final String JUL_FORMAT = "%1$tFT%1$tT.%1$tL%1$tz %4$s %3$s - %5$s%6$s%n";

  private CommandLogs() {}

  /** Configures logging for a run with {@code args}; {@code rangekv.log.level} overrides the level. */
  public static void configure(String[] args) {
    List<String> list = List.of(args);
    String command = list.stream().filter(a -> !a.startsWith("-")).findFirst().orElse("");
    boolean verbose = list.contains("--verbose");
    String level = verbose || LOGGING_COMMANDS.contains(command) ? "info" : command.equals("demo") ? "error" : "warn";
    String override = System.getProperty("rangekv.log.level");
    if (logbackPresent()) {
      Logs.command(level, override, verbose, command.equals("demo"));
    } else {
      julOnly(override == null ? level : override.toLowerCase(Locale.ROOT));
    }
  }

  /** True in the full jar and in tests; false in the thin jar. */
  static boolean logbackPresent() {
    try {
      Class.forName("ch.qos.logback.classic.LoggerContext", false, CommandLogs.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  private static void julOnly(String level) {
    if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
      System.setProperty("java.util.logging.SimpleFormatter.format", JUL_FORMAT); // read when the formatter is made
    }
    Logger.getLogger("").setLevel(jul(level)); // the root's console handler (stderr) passes every level
  }

  /** A Logback level name as java.util.logging's; unknown names keep warnings, as Logback's toLevel does. */
  static Level jul(String level) {
    return switch (level) {
      case "off" -> Level.OFF;
      case "error" -> Level.SEVERE;
      case "info" -> Level.INFO;
      case "debug" -> Level.FINE;
      case "trace", "all" -> Level.ALL;
      default -> Level.WARNING;
    };
  }
}
