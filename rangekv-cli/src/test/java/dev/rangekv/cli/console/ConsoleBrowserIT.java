package dev.rangekv.cli.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.client.ClientOptions;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyText;
import dev.rangekv.proto.ListRangeStatsRequest;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.server.meta.MetaLocator;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import dev.rangekv.server.raft.PeerChannels;
import dev.rangekv.testkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * The console in headless Chromium against a 3-node in-JVM cluster under a monotonic-key workload:
 * every page loads without console errors, the range table lists every range of the map, and the heat
 * map's hottest band is the last range (where all appends land), by QPS and by bytes written. Saves
 * screenshots under {@code target/screenshots}; {@code -Drangekv.screenshots.update=true} writes them to
 * {@code docs/img}, where the README shows them (so a plain verify leaves the checkout unchanged).
 */
class ConsoleBrowserIT {
  private static final Path SCREENSHOTS = Boolean.getBoolean("rangekv.screenshots.update")
      ? Path.of("..", "docs", "img")
      : Path.of("target", "screenshots");

  @TempDir Path dir;

  @Test
  @Timeout(600)
  void console_showsEveryRange_andTheMonotonicWorkloadAsTheHottestTopBand() throws Exception {
    Browser.ensureInstalled();
    ControllerConfig controller = ControllerConfig.builder().maxBytes(512 << 10).tickMillis(1_000)
        .splitCooldownMillis(4_000).deadNodeTimeoutMillis(20_000).hotspotWindow(3).hotspotMinQps(5).build();
    try (LocalCluster cluster = LocalCluster.start(3, dir.resolve("cluster"), RaftTuning.forTests().withUnsafeFlush(true),
        controller)) {
      List<String> addresses = new ArrayList<>();
      for (int i = 0; i < cluster.size(); i++) {
        addresses.add(cluster.config(i).clientAddress());
      }
      String console = "http://" + cluster.node(1).httpAddress().orElseThrow() + "/ui/"; // not the meta leader's
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong written = new AtomicLong();
      try (RangeKvClient client = RangeKvClient.connect(addresses, ClientOptions.defaults());
           PeerChannels channels = new PeerChannels()) {
        MetaLocator meta = MetaLocator.forCommand(channels, addresses);
        Thread writer = new Thread(() -> {
          byte[] value = new byte[2048];
          while (!stop.get()) {
            long n = written.get();
            client.withTimeout(Duration.ofSeconds(30)).put(Key.utf8(String.format("user/%08d", n)), value);
            written.incrementAndGet();
          }
        }, "monotonic-writer");
        writer.setDaemon(true);
        writer.start();
        ChromeDriver browser = Browser.start(dir.resolve("chromium-profile"));
        try {
          await(Duration.ofMinutes(4), "at least 4 ranges", () -> ranges(meta).size() >= 4);

          // heat map: while the appends go on, the top band is the hottest
          String[] seen = new String[2];
          try {
            await(Duration.ofMinutes(2), "the hottest band to be the last range, of at least 4 bands", () -> {
              load(browser, console + "heatmap.html");
              WebElement body = browser.findElement(By.tagName("body"));
              seen[0] = body.getDomAttribute("data-hottest-band");
              seen[1] = body.getDomAttribute("data-last-range-band");
              String bands = body.getDomAttribute("data-bands");
              // the ring samples the map once per controller tick: its latest column can lag a split
              return seen[1] != null && seen[1].equals(seen[0]) && bands != null && Integer.parseInt(bands) >= 4;
            });
          } catch (AssertionError e) {
            shoot(browser, "console-heatmap-failed.png");
            throw new AssertionError(e.getMessage() + ": hottest band " + seen[0] + ", last range's band " + seen[1], e);
          }
          // the last range of the latest column is (or precedes, after a later split) the map's last range now
          List<RangeStatsProto> map = ranges(meta);
          assertThat(unquoted(label(map.get(map.size() - 1).getRange()))).isGreaterThanOrEqualTo(unquoted(seen[1]));
          assertThat(Integer.parseInt(browser.findElement(By.tagName("body")).getDomAttribute("data-bands")))
              .isGreaterThanOrEqualTo(4);
          shoot(browser, "console-heatmap.png");
          assertThat(Browser.errors(browser)).as("console errors on the heat map").isEmpty();

          // coloured by bytes written: the appends (2 KiB values) make the same band the hottest
          String[] bytes = new String[3];
          try {
            await(Duration.ofMinutes(2), "the band writing the most bytes to be the last range", () -> {
              load(browser, console + "heatmap.html?metric=bytes");
              WebElement body = browser.findElement(By.tagName("body"));
              bytes[0] = body.getDomAttribute("data-hottest-band");
              bytes[1] = body.getDomAttribute("data-last-range-band");
              bytes[2] = body.getDomAttribute("data-hottest-value");
              return "bytes".equals(body.getDomAttribute("data-metric")) && bytes[1] != null && bytes[1].equals(bytes[0])
                  && bytes[2] != null && Double.parseDouble(bytes[2]) > 0;
            });
          } catch (AssertionError e) {
            shoot(browser, "console-heatmap-bytes-failed.png");
            throw new AssertionError(e.getMessage() + ": hottest band " + bytes[0] + " (" + bytes[2]
                + " bytes/s), last range's band " + bytes[1], e);
          }
          // the summary names a byte rate, not QPS
          assertThat(browser.findElement(By.id("hottest")).getText()).contains("/s");
          shoot(browser, "console-heatmap-bytes.png");
          assertThat(Browser.errors(browser)).as("console errors on the heat map by bytes").isEmpty();

          load(browser, console + "index.html");
          assertThat(browser.findElements(By.cssSelector("#nodes tbody tr"))).hasSize(3);
          shoot(browser, "console-overview.png");
          assertThat(Browser.errors(browser)).as("console errors on the overview").isEmpty();

          load(browser, console + "hot.html");
          assertThat(browser.findElements(By.cssSelector("#top tbody tr"))).isNotEmpty();
          assertThat(Browser.errors(browser)).as("console errors on hot ranges").isEmpty();

          stop.set(true);
          writer.join(60_000);
          // the range table lists every range of the map (re-read until a split in flight has settled)
          await(Duration.ofMinutes(1), "the range table to match the map", () -> {
            Set<String> expected = ranges(meta).stream().map(r -> Long.toUnsignedString(r.getRange().getRangeId()))
                .collect(Collectors.toSet());
            load(browser, console + "ranges.html");
            Set<String> shown = browser.findElements(By.cssSelector("#ranges tbody tr")).stream()
                .map(tr -> tr.getDomAttribute("data-range")).collect(Collectors.toSet());
            return shown.equals(expected);
          });
          shoot(browser, "console-ranges.png");
          assertThat(Browser.errors(browser)).as("console errors on the ranges page").isEmpty();

          WebElement first = browser.findElements(By.cssSelector("#ranges tbody tr")).get(0);
          String id = first.getDomAttribute("data-range");
          first.click();
          awaitLoaded(browser);
          assertThat(browser.findElement(By.tagName("h1")).getText()).isEqualTo("Range r" + id);
          assertThat(browser.findElement(By.id("range")).getText()).contains("-inf");
          assertThat(Browser.errors(browser)).as("console errors on a range page").isEmpty();
        } finally {
          stop.set(true);
          browser.quit();
        }
      }
    }
  }

  /** The meta range's ranges in key order. */
  private static List<RangeStatsProto> ranges(MetaLocator meta) {
    return meta.call(s -> s.listRangeStats(ListRangeStatsRequest.getDefaultInstance()), Duration.ofSeconds(10))
        .getRangesList();
  }

  /** A start key as the console prints it: as the CLI does ({@link KeyText}), the empty start as -inf. */
  /**
   * A label without the quotes a key with unprintable bytes is rendered in, so labels compare by their text: an
   * append-aware split key (the last written key plus a zero byte) renders as {@code "user/00001047\x00"}, which
   * would otherwise sort before every plain {@code user/...} label.
   */
  private static String unquoted(String label) {
    return label.length() >= 2 && label.startsWith("\"") && label.endsWith("\"")
        ? label.substring(1, label.length() - 1) : label;
  }

  private static String label(RangeDescriptorProto d) {
    return d.getStart().isEmpty() ? "-inf" : KeyText.render(Key.of(d.getStart().toByteArray()));
  }

  private static void load(ChromeDriver browser, String url) {
    browser.get(url);
    awaitLoaded(browser);
  }

  private static void awaitLoaded(ChromeDriver browser) {
    await(Duration.ofSeconds(30), "the page to load", () -> {
      String state = browser.findElement(By.tagName("body")).getDomAttribute("data-loaded");
      if ("error".equals(state)) {
        throw new AssertionError("page error: " + browser.findElement(By.id("status")).getText());
      }
      return "true".equals(state);
    });
  }

  private static void shoot(ChromeDriver browser, String name) throws java.io.IOException {
    Files.createDirectories(SCREENSHOTS);
    Path shot = browser.getScreenshotAs(OutputType.FILE).toPath();
    Files.copy(shot, SCREENSHOTS.resolve(name), StandardCopyOption.REPLACE_EXISTING);
  }

  private static void await(Duration timeout, String what, BooleanSupplier condition) {
    Await.until(timeout, Duration.ofMillis(250), what, condition);
  }
}
