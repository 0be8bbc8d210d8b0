package dev.rangekv.server.observe;

import java.util.Objects;

/**
 * Whether a node serves its HTTP port (metrics, health, console) and where. Port 0 binds a free port
 * (in-JVM clusters); {@link #DISABLED} also turns the node's metrics off (no registry, no interceptor).
 *
 * @param enabled serve HTTP and keep metrics
 * @param host listen host
 * @param port listen port; 0 picks a free one
 */
public record HttpSettings(boolean enabled, String host, int port) {
  /** No HTTP port and no metrics. */
  public static final HttpSettings DISABLED = new HttpSettings(false, "127.0.0.1", 0);

  public HttpSettings {
    Objects.requireNonNull(host, "host");
    if (port < 0 || port > 65_535) {
      throw new IllegalArgumentException("bad http port " + port);
    }
  }

  /** Serve on {@code host:port}. */
  public static HttpSettings on(String host, int port) {
    return new HttpSettings(true, host, port);
  }
}
