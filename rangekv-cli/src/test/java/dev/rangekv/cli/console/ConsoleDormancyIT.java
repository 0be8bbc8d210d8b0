package dev.rangekv.cli.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.rangekv.client.ClientOptions;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.key.Key;
import dev.rangekv.proto.AdminSplitRequest;
import dev.rangekv.proto.ListNodesRequest;
import dev.rangekv.proto.ListRangeStatsRequest;
import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.server.meta.MetaLocator;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import dev.rangekv.server.raft.PeerChannels;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * The console shows which ranges are dormant, in headless Chromium against a 3-node in-JVM cluster whose
 * idle ranges go dormant after 3 s: of two ranges, the one a reader keeps touching shows as awake and
 * the idle one as dormant on the Ranges page (the STATE {@code rangekv ranges} prints), the Overview's
 * node table counts each node's awake and dormant replicas as the meta range's node records do, and once
 * the reader stops, both ranges show as dormant. Takes no screenshots (ConsoleBrowserIT makes the
 * README's).
 */
class ConsoleDormancyIT {
  @TempDir Path dir;

  @Test
  @Timeout(300)
  void console_showsDormantAndAwakeRanges_andEachNodesCounts() throws Exception {
    Browser.ensureInstalled();
    RaftTuning tuning = RaftTuning.forTests().withUnsafeFlush(true).withDormantAfter(Duration.ofSeconds(3));
    // min-bytes 0: the two small ranges never merge back
    ControllerConfig controller = ControllerConfig.builder().tickMillis(1_000).minBytes(0).build();
    try (LocalCluster cluster = LocalCluster.start(3, dir.resolve("cluster"), tuning, controller)) {
      List<String> addresses = new ArrayList<>();
      for (int i = 0; i < cluster.size(); i++) {
        addresses.add(cluster.config(i).clientAddress());
      }
      String console = "http://" + cluster.node(2).httpAddress().orElseThrow() + "/ui/";
      AtomicBoolean stop = new AtomicBoolean();
      try (RangeKvClient client = RangeKvClient.connect(addresses, ClientOptions.defaults());
           PeerChannels channels = new PeerChannels()) {
        MetaLocator meta = MetaLocator.forCommand(channels, addresses);
        RangeKvClient patient = client.withTimeout(Duration.ofSeconds(30)); // a dormant range answers after a wake
        patient.put(Key.utf8("a"), new byte[] {1});
        patient.put(Key.utf8("z"), new byte[] {2});
        // the controller may move r1's leadership meanwhile (a fresh cluster balances leaders): a split
        // cancelled because its node stopped leading is tried again, unless the map shows it done
        await(Duration.ofSeconds(60), "the split at m", () -> ranges(meta).size() == 2 || split(meta, "m"));
        await(Duration.ofSeconds(60), "two ranges in the map", () -> ranges(meta).size() == 2);
        String idle = Long.toUnsignedString(ranges(meta).get(0).getRange().getRangeId());   // [-inf, m): "a"
        String touched = Long.toUnsignedString(ranges(meta).get(1).getRange().getRangeId()); // [m, +inf): "z"

        // a reader keeps [m, +inf) awake; [-inf, m) goes dormant
        Thread reader = new Thread(() -> {
          while (!stop.get()) {
            patient.get(Key.utf8("z"));
            try {
              Thread.sleep(200); // a request every 200 ms: far under the 3 s idle time
            } catch (InterruptedException e) {
              return;
            }
          }
        }, "reader");
        reader.setDaemon(true);
        reader.start();
        ChromeDriver browser = Browser.start(dir.resolve("chromium-profile"));
        try {
          Map<String, String> seen = new HashMap<>();
          await(Duration.ofSeconds(120), "the idle range dormant and the read one awake on the Ranges page", () -> {
            seen.clear();
            seen.putAll(states(browser, console));
            return "dormant".equals(seen.get(idle)) && "awake".equals(seen.get(touched));
          });
          assertThat(browser.findElement(By.id("count")).getText()).contains("1 awake, 1 dormant");
          assertThat(Browser.errors(browser)).as("console errors on the ranges page").isEmpty();

          // every node holds both ranges: each counts one dormant replica, as the meta range's records say
          await(Duration.ofSeconds(60), "each node's record to count the dormant replica", () ->
              nodes(meta).stream().allMatch(n -> n.getDormantCount() == 1));
          List<NodeRecord> records = nodes(meta);
          await(Duration.ofSeconds(60), "the Overview to show each node's awake and dormant replicas", () -> {
            load(browser, console + "index.html");
            List<WebElement> rows = browser.findElements(By.cssSelector("#nodes tbody tr"));
            if (rows.size() != 3) {
              return false;
            }
            for (WebElement row : rows) {
              List<String> cells = row.findElements(By.tagName("td")).stream().map(WebElement::getText).toList();
              NodeRecord n = records.stream().filter(r -> r.getNodeId().equals(cells.get(0))).findFirst().orElseThrow();
              if (!cells.get(3).equals(String.valueOf(n.getReplicaCount()))
                  || !cells.get(4).equals(String.valueOf(n.getReplicaCount() - n.getDormantCount()))
                  || !cells.get(5).equals("1")) {
                return false;
              }
            }
            return browser.findElement(By.id("total-dormant")).getText().contains("1");
          });
          assertThat(browser.findElements(By.cssSelector("#nodes thead th")).stream().map(WebElement::getText).toList())
              .containsSubsequence("replicas", "awake", "dormant");
          assertThat(Browser.errors(browser)).as("console errors on the overview").isEmpty();

          // the range page names the state too
          load(browser, console + "range.html?id=" + idle);
          assertThat(browser.findElement(By.id("range")).getText()).contains("dormant");

          // the reader stops: the other range goes dormant as well
          stop.set(true);
          reader.join(60_000);
          await(Duration.ofSeconds(120), "both ranges dormant on the Ranges page", () -> {
            seen.clear();
            seen.putAll(states(browser, console));
            return "dormant".equals(seen.get(idle)) && "dormant".equals(seen.get(touched));
          });
          assertThat(browser.findElement(By.id("count")).getText()).contains("0 awake, 2 dormant");
          assertThat(Browser.errors(browser)).as("console errors").isEmpty();
        } finally {
          stop.set(true);
          browser.quit();
        }
      }
    }
  }

  /** The Ranges page's STATE column by range id, after checking it agrees with each row's data-state. */
  private static Map<String, String> states(ChromeDriver browser, String console) {
    load(browser, console + "ranges.html");
    Map<String, String> out = new HashMap<>();
    for (WebElement tr : browser.findElements(By.cssSelector("#ranges tbody tr"))) {
      String shown = tr.findElement(By.cssSelector("td.state")).getText();
      assertThat(tr.getDomAttribute("data-state")).isEqualTo(shown);
      out.put(tr.getDomAttribute("data-range"), shown);
    }
    return out;
  }

  /** Asks for a split at {@code key}; false when it was cancelled or not routed (UNAVAILABLE: worth another try). */
  private static boolean split(MetaLocator meta, String key) {
    try {
      meta.change(s -> s.split(AdminSplitRequest.newBuilder().setSplitKey(ByteString.copyFromUtf8(key)).build()),
          Duration.ofSeconds(30));
      return true;
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.UNAVAILABLE) {
        throw e;
      }
      return false;
    }
  }

  /** The meta range's ranges in key order. */
  private static List<RangeStatsProto> ranges(MetaLocator meta) {
    return meta.call(s -> s.listRangeStats(ListRangeStatsRequest.getDefaultInstance()), Duration.ofSeconds(10))
        .getRangesList();
  }

  private static List<NodeRecord> nodes(MetaLocator meta) {
    return meta.call(s -> s.listNodes(ListNodesRequest.getDefaultInstance()), Duration.ofSeconds(10)).getNodesList();
  }

  private static void load(ChromeDriver browser, String url) {
    browser.get(url);
    await(Duration.ofSeconds(30), "the page to load", () -> {
      String state = browser.findElement(By.tagName("body")).getDomAttribute("data-loaded");
      if ("error".equals(state)) {
        throw new AssertionError("page error: " + browser.findElement(By.id("status")).getText());
      }
      return "true".equals(state);
    });
  }

  private static void await(Duration timeout, String what, BooleanSupplier condition) {
    dev.rangekv.testkit.Await.until(timeout, Duration.ofMillis(250), what, condition);
  }
}
