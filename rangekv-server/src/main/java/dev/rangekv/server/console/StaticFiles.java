package dev.rangekv.server.console;

import com.sun.net.httpserver.HttpExchange;
import dev.rangekv.server.observe.NodeHttp;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;

/** Serves files from the classpath under a prefix (the console's pages, the WebJar's scripts). */
final class StaticFiles {
  private static final Map<String, String> TYPES = Map.of(
      "html", "text/html; charset=utf-8",
      "js", "text/javascript; charset=utf-8",
      "css", "text/css; charset=utf-8",
      "svg", "image/svg+xml",
      "png", "image/png",
      "json", "application/json");

  private StaticFiles() {}

  /** Answers {@code resourceRoot + rest of the path after urlPrefix}; 404 when absent or when the path climbs. */
  static void serve(HttpExchange ex, String urlPrefix, String resourceRoot, String index) throws IOException {
    String rest = ex.getRequestURI().getPath().substring(urlPrefix.length());
    if (rest.isEmpty() || rest.endsWith("/")) {
      rest = rest + index;
    }
    if (rest.contains("..")) {
      NodeHttp.reply(ex, 404, "text/plain; charset=utf-8", "not found\n");
      return;
    }
    try (InputStream in = StaticFiles.class.getClassLoader().getResourceAsStream(resourceRoot + rest)) {
      if (in == null) {
        NodeHttp.reply(ex, 404, "text/plain; charset=utf-8", "not found: " + rest + "\n");
        return;
      }
      String ext = rest.substring(rest.lastIndexOf('.') + 1);
      NodeHttp.reply(ex, 200, TYPES.getOrDefault(ext, "application/octet-stream"), in.readAllBytes());
    }
  }
}
