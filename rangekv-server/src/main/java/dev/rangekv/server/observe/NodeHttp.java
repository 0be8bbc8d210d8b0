package dev.rangekv.server.observe;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's HTTP port (the JDK's server on two daemon threads): {@code /metrics} in Prometheus text,
 * {@code /health} (the process is up) and {@code /health?ready=1} (it can serve), plus whatever the
 * console adds with {@link #route}. Answers are small and computed on demand; nothing here is on the
 * request path.
 */
public final class NodeHttp implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NodeHttp.class);
  static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private final HttpServer server;
  private final ExecutorService executor;

  private NodeHttp(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /** Binds {@code host:port} (0 = a free port) and serves metrics and health; {@link #start} opens it. */
  public static NodeHttp bind(String nodeId, String host, int port, NodeMetrics metrics, Readiness readiness)
      throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 64);
    ExecutorService executor = Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "rangekv-" + nodeId + "-http");
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(executor);
    NodeHttp http = new NodeHttp(server, executor);
    http.route("/metrics", ex -> reply(ex, 200, PROMETHEUS_TEXT, metrics.scrape()));
    http.route("/health", ex -> {
      boolean wantReady = ex.getRequestURI().getRawQuery() != null
          && ex.getRequestURI().getRawQuery().matches("(^|.*&)ready=(1|true)(&.*|$)");
      if (!wantReady) {
        reply(ex, 200, "text/plain; charset=utf-8", "up\n");
        return;
      }
      Readiness.Verdict v = readiness.check();
      reply(ex, v.ready() ? 200 : 503, "text/plain; charset=utf-8", (v.ready() ? "ready" : "not ready: " + v.reason()) + "\n");
    });
    return http;
  }

  /** Adds a handler for {@code path} and everything under it. Failures answer 500 with one line. */
  public void route(String path, HttpHandler handler) {
    server.createContext(path, ex -> {
      try {
        handler.handle(ex);
      } catch (IOException | RuntimeException e) {
        log.warn("http request failed path={} error={}", ex.getRequestURI().getPath(), e.toString());
        try {
          reply(ex, 500, "text/plain; charset=utf-8", "error: " + e.getMessage() + "\n");
        } catch (IOException | RuntimeException ignored) {
          // headers were sent already: the client sees a truncated answer
        }
      } finally {
        ex.close();
      }
    });
  }

  public void start() {
    server.start();
  }

  /** The bound address as host:port. */
  public String address() {
    InetSocketAddress a = server.getAddress();
    return a.getHostString() + ":" + a.getPort();
  }

  /** Sends {@code body} with {@code status}; HEAD gets the headers only. */
  public static void reply(HttpExchange ex, int status, String contentType, String body) throws IOException {
    reply(ex, status, contentType, body.getBytes(StandardCharsets.UTF_8));
  }

  public static void reply(HttpExchange ex, int status, String contentType, byte[] body) throws IOException {
    ex.getResponseHeaders().set("Content-Type", contentType);
    ex.getResponseHeaders().set("Cache-Control", "no-store");
    boolean head = "HEAD".equals(ex.getRequestMethod());
    ex.sendResponseHeaders(status, head ? -1 : body.length);
    if (!head) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
