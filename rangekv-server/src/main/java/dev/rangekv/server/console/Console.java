package dev.rangekv.server.console;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;
import com.sun.net.httpserver.HttpExchange;
import dev.rangekv.proto.ListEventsRequest;
import dev.rangekv.proto.ListNodesRequest;
import dev.rangekv.proto.ListNodesResponse;
import dev.rangekv.proto.ListRangeStatsRequest;
import dev.rangekv.proto.MetaServiceGrpc;
import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.WhyRequest;
import dev.rangekv.server.meta.MetaNode;
import dev.rangekv.server.observe.KeyHeatRing;
import dev.rangekv.server.observe.NodeHttp;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Installs the console on a node's HTTP port: {@code /ui/} (pages), {@code /webjars/} (ECharts),
 * {@code /api/...} (JSON). The API reads the meta range through the node's meta locator, so every node
 * answers; the heat map lives on the meta leader, and other nodes fetch it from the leader's HTTP port.
 */
public final class Console {
  static final String JSON = "application/json; charset=utf-8";
  private static final Duration META_TIMEOUT = Duration.ofSeconds(5);
  private static final JsonFormat.Printer PRINTER = JsonFormat.printer().alwaysPrintFieldsWithNoPresence()
      .omittingInsignificantWhitespace();

  private final MetaNode meta;
  private final KeyHeatRing heat;
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

  private Console(MetaNode meta, KeyHeatRing heat) {
    this.meta = meta;
    this.heat = heat;
  }

  /** Adds the console's routes to {@code http}. */
  public static void install(NodeHttp http, MetaNode meta, KeyHeatRing heat) {
    Console c = new Console(meta, heat);
    http.route("/", ex -> {
      if (ex.getRequestURI().getPath().equals("/")) {
        ex.getResponseHeaders().set("Location", "/ui/");
        ex.sendResponseHeaders(302, -1);
      } else {
        NodeHttp.reply(ex, 404, "text/plain; charset=utf-8", "not found\n");
      }
    });
    http.route("/ui/", ex -> StaticFiles.serve(ex, "/ui/", "console/", "index.html"));
    http.route("/webjars/", ex -> StaticFiles.serve(ex, "/webjars/", "META-INF/resources/webjars/", "index.html"));
    http.route("/api/nodes", ex -> c.proto(ex, s -> s.listNodes(ListNodesRequest.getDefaultInstance())));
    http.route("/api/ranges", ex -> c.proto(ex, s -> s.listRangeStats(ListRangeStatsRequest.getDefaultInstance())));
    http.route("/api/events", ex -> {
      Map<String, String> q = query(ex);
      c.proto(ex, s -> s.listEvents(ListEventsRequest.newBuilder()
          .setRangeId(Long.parseLong(q.getOrDefault("range", "0")))
          .setLimit(Integer.parseInt(q.getOrDefault("limit", "0"))).build()));
    });
    http.route("/api/why", ex -> {
      long range = Long.parseLong(query(ex).getOrDefault("range", "0"));
      c.proto(ex, s -> s.why(WhyRequest.newBuilder().setRangeId(range).build()));
    });
    http.route("/api/heatmap", c::heatmap);
  }

  private void proto(HttpExchange ex, Function<MetaServiceGrpc.MetaServiceBlockingStub, MessageOrBuilder> call)
      throws IOException {
    MessageOrBuilder answer;
    try {
      answer = meta.read(call, META_TIMEOUT);
    } catch (StatusRuntimeException | IllegalStateException e) {
      NodeHttp.reply(ex, 503, JSON, error("the meta range did not answer: " + e.getMessage()));
      return;
    }
    try {
      NodeHttp.reply(ex, 200, JSON, KeyTextJson.withKeyText(PRINTER.print(answer), answer));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("printing " + answer.getClass().getSimpleName() + " as JSON failed", e);
    }
  }

  /** The leader's ring; elsewhere, the leader's answer fetched over HTTP ({@code local=1} never forwards). */
  private void heatmap(HttpExchange ex) throws IOException {
    if (meta.group().map(g -> g.isLeader()).orElse(false)) {
      NodeHttp.reply(ex, 200, JSON, HeatJson.of(heat.columns()));
      return;
    }
    if ("1".equals(query(ex).get("local"))) {
      NodeHttp.reply(ex, 503, JSON, error("this node does not lead the meta range"));
      return;
    }
    String leaderHttp;
    try {
      ListNodesResponse nodes = meta.read(s -> s.listNodes(ListNodesRequest.getDefaultInstance()), META_TIMEOUT);
      leaderHttp = nodes.getNodesList().stream().filter(n -> n.getNodeId().equals(nodes.getMetaLeaderNodeId()))
          .map(NodeRecord::getHttpAddress).findFirst().orElse("");
    } catch (StatusRuntimeException | IllegalStateException e) {
      NodeHttp.reply(ex, 503, JSON, error("the meta range did not answer: " + e.getMessage()));
      return;
    }
    if (leaderHttp.isEmpty()) {
      NodeHttp.reply(ex, 503, JSON, error("the meta leader's HTTP address is not known yet"));
      return;
    }
    try {
      HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://" + leaderHttp + "/api/heatmap?local=1"))
          .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
      NodeHttp.reply(ex, r.statusCode(), JSON, r.body());
    } catch (IOException e) {
      NodeHttp.reply(ex, 503, JSON, error("the meta leader at " + leaderHttp + " did not answer: " + e.getMessage()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      NodeHttp.reply(ex, 503, JSON, error("interrupted"));
    }
  }

  static String error(String message) {
    return "{\"error\":" + HeatJson.string(message) + "}";
  }

  private static Map<String, String> query(HttpExchange ex) {
    Map<String, String> out = new HashMap<>();
    String raw = ex.getRequestURI().getRawQuery();
    if (raw == null) {
      return out;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return out;
  }
}
