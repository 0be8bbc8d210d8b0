package dev.rangekv.cli.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rangekv demo --duration 30s} as a subprocess: its output shows splits, moves (replica moves or
 * leadership transfers) and the monotonic-key alert, ends with the summary, and the demo removes its
 * temporary directory. Needs the meta range and controller (issue 6) wired into LocalCluster.
 */
@Timeout(240)
class DemoProcessIT {
  @TempDir
  Path dir;

  @Test
  void demo_showsSplitsMovesAndTheMonotonicAlert_thenCleansUp() throws Exception {
    Path tmp = Files.createDirectories(dir.resolve("tmp"));
    try (CliProcess demo = CliProcess.start(dir.resolve("demo.log"), List.of("-Xmx1g", "-Djava.io.tmpdir=" + tmp),
        List.of("demo", "--duration", "45s"))) {
      int exit = demo.awaitExit(Duration.ofSeconds(200));
      String out = demo.output();
      assertThat(exit).as(out).isZero();
      assertThat(out).as(out)
          .contains("== phase 1 (event_ts, order_id, seq): the monotonic trap ==")
          .contains("== phase 2 (order_id, event_ts, seq): writes spread, time order lost ==")
          .contains("== phase 3 (bucket, event_ts, order_id, seq): writes spread, time order kept ==")
          .contains("== summary: the same order events, three key designs ==")
          .contains("== what to try next ==")
          .containsPattern("phase 3 \\(bucket, event_ts, order_id, seq\\): [0-9,]+ events in the window; 8 scans merged,"
              + " read [0-9,]+ keys in [0-9,]+ ms; time order kept")
          .containsPattern("split \\[r\\d+,r\\d+\\] r\\d+ split at /events_by_time/");
      assertThat(events(out, "split")).as(out).isPositive();
      assertThat(events(out, "move") + events(out, "leader-transfer")).as(out).isPositive();
      assertThat(events(out, "alert-monotonic")).as(out).isPositive();
      Matcher m = Pattern.compile("under (\\S+);").matcher(out);
      assertThat(m.find()).as(out).isTrue();
      assertThat(Path.of(m.group(1))).doesNotExist();
      assertThat(Path.of(m.group(1)).getParent()).isEqualTo(tmp);
    }
  }

  /** Event lines of one kind: {@code     event #12 21:55:03 split [r1,r7] ...}. */
  private static long events(String out, String kind) {
    try (Stream<String> lines = out.lines()) {
      return lines.filter(l -> l.matches("\\s+event #\\d+ \\d\\d:\\d\\d:\\d\\d " + Pattern.quote(kind) + "( .*)?")).count();
    }
  }
}
