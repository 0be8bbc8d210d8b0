package dev.rangekv.cli.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.jul.LevelChangePropagator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.rolling.SizeAndTimeBasedRollingPolicy;
import ch.qos.logback.core.util.FileSize;
import dev.rangekv.server.ratis.RatisEngine;
import java.nio.file.Path;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Configures Logback for this process (replacing any earlier configuration): stderr always, and for a
 * node a rolling file {@code rangekv.log} (daily and at 64 MiB, 14 files, 1 GiB at most, older ones
 * gzipped). Timestamps are ISO-8601 with date, milliseconds and zone offset. java.util.logging is routed
 * here, with levels propagated back so disabled JUL lines cost nothing.
 */
public final class Logs {
  /** ISO-8601 with date and zone: 2026-12-01T11:02:03.456+00:00. */
  static final String PATTERN = "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{36} - %msg%n";
  public static final String FILE_NAME = "rangekv.log";

  private Logs() {}

  /**
   * A command's logging (see {@link CommandLogs}): stderr at {@code level}, or at {@code override} (a level
   * name, e.g. {@code debug}) when not null. Ratis prints every setting at info on start: for people, a
   * node's own lines are the useful ones; the demo's nodes log errors with stack traces while they stop one
   * after another: noise there.
   */
  static void command(String level, String override, boolean verbose, boolean demo) {
    Level chosen = Level.toLevel(level);
    if (override != null) {
      chosen = Level.toLevel(override, chosen);
    }
    Level ratis = verbose || override != null ? chosen
        : demo ? Level.OFF : chosen.isGreaterOrEqual(Level.WARN) ? chosen : Level.WARN;
    console(chosen, ratis);
  }

  /** Logs to stderr only, at {@code level}; {@code ratisLevel} for Ratis' chatty start-up lines. */
  public static void console(Level level, Level ratisLevel) {
    LoggerContext ctx = reset();
    root(ctx, level).addAppender(stderr(ctx, LogFormat.TEXT));
    ctx.getLogger(RatisEngine.LOGGER_NAMESPACE).setLevel(ratisLevel);
  }

  /**
   * A node process: stderr plus a rolling file in {@code dir}, both in {@code format}, at {@code level}
   * (Ratis at warn unless {@code level} is finer than info: it prints every setting at info on start; and
   * then its stack traces for requests to groups not run here are summed up, see {@link MissingGroupNoise}).
   */
  public static void node(Path dir, LogFormat format, Level level) {
    LoggerContext ctx = reset();
    if (level.isGreaterOrEqual(Level.INFO)) {
      // requests for range groups not run here (split children, dormant ranges): one line a minute
      MissingGroupNoise noise = new MissingGroupNoise(System::nanoTime);
      noise.setContext(ctx);
      noise.start();
      ctx.addTurboFilter(noise);
    }
    Logger root = root(ctx, level);
    root.addAppender(stderr(ctx, format));
    root.addAppender(file(ctx, dir, format));
    ctx.getLogger(RatisEngine.LOGGER_NAMESPACE).setLevel(level.isGreaterOrEqual(Level.INFO) ? Level.WARN : level);
  }

  private static LoggerContext reset() {
    LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
    ctx.reset();
    LevelChangePropagator jul = new LevelChangePropagator();
    jul.setContext(ctx);
    jul.setResetJUL(true);
    jul.start();
    ctx.addListener(jul);
    if (!SLF4JBridgeHandler.isInstalled()) {
      SLF4JBridgeHandler.removeHandlersForRootLogger();
      SLF4JBridgeHandler.install();
    }
    return ctx;
  }

  private static Logger root(LoggerContext ctx, Level level) {
    Logger root = ctx.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(level);
    return root;
  }

  private static ConsoleAppender<ILoggingEvent> stderr(LoggerContext ctx, LogFormat format) {
    ConsoleAppender<ILoggingEvent> a = new ConsoleAppender<>();
    a.setContext(ctx);
    a.setName("stderr");
    a.setTarget("System.err");
    a.setEncoder(encoder(ctx, format));
    a.start();
    return a;
  }

  private static RollingFileAppender<ILoggingEvent> file(LoggerContext ctx, Path dir, LogFormat format) {
    RollingFileAppender<ILoggingEvent> a = new RollingFileAppender<>();
    a.setContext(ctx);
    a.setName("file");
    a.setFile(dir.resolve(FILE_NAME).toString());
    SizeAndTimeBasedRollingPolicy<ILoggingEvent> policy = new SizeAndTimeBasedRollingPolicy<>();
    policy.setContext(ctx);
    policy.setParent(a);
    policy.setFileNamePattern(dir.resolve("rangekv-%d{yyyy-MM-dd}.%i.log.gz").toString());
    policy.setMaxFileSize(FileSize.valueOf("64MB"));
    policy.setMaxHistory(14);
    policy.setTotalSizeCap(FileSize.valueOf("1GB"));
    policy.start();
    a.setRollingPolicy(policy);
    a.setEncoder(encoder(ctx, format));
    a.start();
    return a;
  }

  private static Encoder<ILoggingEvent> encoder(LoggerContext ctx, LogFormat format) {
    if (format == LogFormat.JSON) {
      JsonEncoder json = new JsonEncoder();
      json.setContext(ctx);
      json.setWithFormattedMessage(true); // the message with its arguments filled in, as the text lines have it
      json.start();
      return json;
    }
    PatternLayoutEncoder text = new PatternLayoutEncoder();
    text.setContext(ctx);
    text.setPattern(PATTERN);
    text.start();
    return text;
  }
}
