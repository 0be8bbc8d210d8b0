package dev.rangekv.server.ratis;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;
import java.util.logging.Filter;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.slf4j.LoggerFactory;

/**
 * Quiets the per-connection failures gRPC's Netty transports log (java.util.logging, a full stack trace
 * per connection) when something that does not speak gRPC (a port scanner, {@code curl}, garbage bytes)
 * connects to the client or Raft port: each such record is replaced by at most one WARN line per port
 * kind per minute, without a stack trace. The records carry no peer address, so the limit is per port
 * kind, which is stricter than per peer. Thread-safe.
 */
public final class ConnectionNoise implements Filter {
  /** The transports' connection loggers: the client port's gRPC and Ratis' shaded copy. */
  static final List<String> LOGGERS = List.of(
      "io.grpc.netty.shaded.io.grpc.netty.NettyServerTransport.connections",
      "org.apache.ratis.thirdparty.io.grpc.netty.NettyServerTransport.connections");
  private static final long WINDOW_NANOS = 60_000_000_000L;
  private static final org.slf4j.Logger log = LoggerFactory.getLogger(ConnectionNoise.class);
  /** Strong references: java.util.logging holds loggers weakly, and a collected logger loses its filter. */
  private static final List<Logger> INSTALLED = LOGGERS.stream().map(Logger::getLogger).toList();

  static {
    INSTALLED.forEach(l -> l.setFilter(new ConnectionNoise(l.getName(), System::nanoTime)));
  }

  private final String port;
  private final LongSupplier nanoClock;
  private final ConcurrentMap<String, Long> lastWarned = new ConcurrentHashMap<>();

  ConnectionNoise(String loggerName, LongSupplier nanoClock) {
    this.port = loggerName.startsWith("org.apache.ratis") ? "raft" : "client";
    this.nanoClock = nanoClock;
  }

  /** Installs the filters (once per JVM; later calls do nothing). */
  public static void install() {
    // the static initializer did it
  }

  /** Never publishes the record; logs one line for it unless one was logged within the minute. */
  @Override
  public boolean isLoggable(LogRecord record) {
    if (shouldWarn()) {
      Throwable t = record.getThrown();
      log.warn("closed a connection that failed before speaking gRPC port={} reason={} (more in the next minute are"
          + " not logged)", port, t == null ? record.getMessage() : firstLine(t));
    }
    return false;
  }

  /** True at most once per minute. */
  boolean shouldWarn() {
    long now = nanoClock.getAsLong();
    boolean[] warn = {false};
    lastWarned.compute(port, (k, last) -> {
      if (last == null || now - last >= WINDOW_NANOS) {
        warn[0] = true;
        return now;
      }
      return last;
    });
    return warn[0];
  }

  private static String firstLine(Throwable t) {
    String m = t.getClass().getSimpleName() + ": " + t.getMessage();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
