package dev.rangekv.cli.node;

import dev.rangekv.cli.cluster.CliException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** Checks that a port can be bound before a node starts: a busy port is one line, not a Ratis stack trace. */
final class PortCheck {
  private PortCheck() {}

  static void requireFree(String host, int port, String option) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(host, port));
    } catch (IOException e) {
      throw new CliException(option + " port " + host + ":" + port + " is not free (" + e.getMessage()
          + "): nothing started, data directory untouched");
    }
  }
}
