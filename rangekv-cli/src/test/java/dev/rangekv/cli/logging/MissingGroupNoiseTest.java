package dev.rangekv.cli.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.core.spi.FilterReply;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.exceptions.GroupMismatchException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** Ratis' stack traces for requests to range groups a node does not run become one line a minute. */
@ExtendWith(RestoresTestLogging.class)
class MissingGroupNoiseTest {
  @TempDir Path dir;

  @Test
  void aNodeLog_holdsOneLineForManyMissingGroupTraces_andEveryOtherWarning() throws Exception {
    Logs.node(dir, LogFormat.TEXT, Level.INFO);
    org.slf4j.Logger ratis = LoggerFactory.getLogger("org.apache.ratis.grpc.server.GrpcServerProtocolService");
    for (int i = 0; i < 5; i++) {
      ratis.warn("{}: Failed requestVote {}", "n1", "n3->n1#" + i, new GroupMismatchException("n1: group-0000" + i + " not found."));
    }
    ratis.warn("n1: append failed", new IOException("disk full"));
    LoggerFactory.getLogger("dev.rangekv.test").warn("ours", new GroupMismatchException("kept: not Ratis' line"));
    ((LoggerContext) LoggerFactory.getILoggerFactory()).stop();

    List<String> lines = Files.readAllLines(dir.resolve(Logs.FILE_NAME));
    assertThat(lines).filteredOn(l -> l.contains("Failed requestVote")).isEmpty();
    assertThat(lines).filteredOn(l -> l.contains("a range group this node does not run")).singleElement()
        .satisfies(l -> assertThat(l).contains("dropped=1"));
    assertThat(lines).anySatisfy(l -> assertThat(l).contains("n1: append failed"));
    assertThat(lines).anySatisfy(l -> assertThat(l).contains("IOException: disk full"));
    assertThat(lines).anySatisfy(l -> assertThat(l).contains("kept: not Ratis' line"));
  }

  @Test
  void theSummaryComesBackAfterAMinute_countingWhatWasDropped() {
    AtomicLong nanos = new AtomicLong();
    MissingGroupNoise noise = new MissingGroupNoise(nanos::get);
    LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
    ch.qos.logback.classic.Logger ratis = ctx.getLogger("org.apache.ratis.grpc.server.GrpcLogAppender");
    ListAppenderHolder summaries = ListAppenderHolder.on(ctx.getLogger(MissingGroupNoise.class));
    Throwable missing = new IllegalStateException("wrapped", new GroupMismatchException("n2: group-01 not found."));

    for (int i = 0; i < 4; i++) {
      assertThat(noise.decide(null, ratis, Level.WARN, "Failed appendEntries", null, missing)).isEqualTo(FilterReply.DENY);
    }
    nanos.addAndGet(61_000_000_000L);
    assertThat(noise.decide(null, ratis, Level.WARN, "{} {}", new Object[] {"x", missing}, null)).isEqualTo(FilterReply.DENY);
    assertThat(noise.decide(null, ratis, Level.WARN, "other", null, new IOException("x"))).isEqualTo(FilterReply.NEUTRAL);

    assertThat(summaries.messages()).hasSize(2);
    assertThat(summaries.messages().get(1)).contains("dropped=4");
  }

  /** Collects the formatted lines one logger writes. */
  private record ListAppenderHolder(ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> list) {
    static ListAppenderHolder on(ch.qos.logback.classic.Logger logger) {
      ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> a = new ch.qos.logback.core.read.ListAppender<>();
      a.setContext(logger.getLoggerContext());
      a.start();
      logger.addAppender(a);
      logger.setLevel(Level.INFO);
      return new ListAppenderHolder(a);
    }

    List<String> messages() {
      return list.list.stream().map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage).toList();
    }
  }
}
