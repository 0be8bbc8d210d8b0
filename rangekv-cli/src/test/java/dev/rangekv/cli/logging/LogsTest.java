package dev.rangekv.cli.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A node's log file: dated ISO-8601 lines with zone (or JSON objects), with java.util.logging bridged in. */
@ExtendWith(RestoresTestLogging.class)
class LogsTest {
  @TempDir Path dir;

  @Test
  void nodeLog_textLinesCarryDateTimeAndZone_andJulLinesArrive() throws Exception {
    Logs.node(dir.resolve("logs"), LogFormat.TEXT, Level.INFO);
    Logger log = LoggerFactory.getLogger("dev.rangekv.test");
    log.info("range split rangeId={} generation={}", 7, 2);
    log.debug("not at info");
    java.util.logging.Logger.getLogger("io.grpc.test").warning("from java.util.logging");
    flush();

    List<String> lines = Files.readAllLines(dir.resolve("logs").resolve(Logs.FILE_NAME));
    assertThat(lines).anySatisfy(l -> assertThat(l)
        .matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}(Z|[+-]\\d{2}:\\d{2}) INFO .*dev\\.rangekv\\.test - range split rangeId=7 generation=2"));
    assertThat(lines).anySatisfy(l -> assertThat(l).contains("WARN").contains("io.grpc.test - from java.util.logging"));
    assertThat(lines).noneSatisfy(l -> assertThat(l).contains("not at info"));
  }

  @Test
  void nodeLog_inJson_isOneObjectPerLine() throws Exception {
    Logs.node(dir, LogFormat.JSON, Level.INFO);
    LoggerFactory.getLogger("dev.rangekv.test").info("node started nodeId={}", "n1");
    flush();

    List<String> lines = Files.readAllLines(dir.resolve(Logs.FILE_NAME)).stream().filter(l -> !l.isBlank()).toList();
    assertThat(lines).isNotEmpty().allSatisfy(l -> assertThat(l).startsWith("{").endsWith("}"));
    assertThat(lines).anySatisfy(l -> assertThat(l).contains("\"level\":\"INFO\"")
        .contains("\"loggerName\":\"dev.rangekv.test\"").contains("node started nodeId=n1"));
  }

  /** Stopping the appenders flushes and closes the file. */
  private static void flush() {
    ((LoggerContext) LoggerFactory.getILoggerFactory()).stop();
  }
}
