package dev.rangekv.server.ratis;

import java.io.IOException;
import java.time.Duration;

/**
 * Checks a node's Raft port before Ratis binds it: Ratis 3.3.0 terminates the JVM when its gRPC server
 * cannot bind, which would take a test run, the demo's one JVM or an embedding application down with it.
 * A port that stays taken becomes an {@link IOException} that names it instead.
 */
final class RaftPortCheck {
  private static final long POLL_MILLIS = 100;

  private RaftPortCheck() {}

  static void awaitFree(String host, int port, Duration wait) throws IOException {
    long end = System.nanoTime() + wait.toNanos();
    while (!bindable(host, port)) {
      if (System.nanoTime() >= end) {
        throw new IOException("Raft port " + host + ":" + port + " is in use (waited " + wait.toSeconds() + " s)");
      }
      try {
        Thread.sleep(POLL_MILLIS); // a port freed by a close has no event to wait on
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for Raft port " + host + ":" + port, e);
      }
    }
  }

  /** Whether {@code host:port} can be bound now (a probe: the port may be taken again right after). */
  private static boolean bindable(String host, int port) {
    try (java.net.ServerSocket s = new java.net.ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new java.net.InetSocketAddress(host, port), 1);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
