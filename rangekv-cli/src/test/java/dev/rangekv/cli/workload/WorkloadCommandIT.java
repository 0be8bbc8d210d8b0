package dev.rangekv.cli.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.cli.CliRun;
import dev.rangekv.cli.OneNodeCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code workload run}: bad options fail in one line; short runs against a one-node in-JVM cluster. */
@Timeout(300)
class WorkloadCommandIT {
  @RegisterExtension
  static final OneNodeCluster CLUSTER = new OneNodeCluster();

  private static CliRun run(String... args) {
    List<String> all = new ArrayList<>(List.of("workload", "run"));
    all.addAll(List.of(args));
    return CLUSTER.run(all.toArray(String[]::new));
  }

  private static void usageError(CliRun r, String message) {
    assertThat(r.exit()).as(r.toString()).isEqualTo(2);
    assertThat(r.err()).as(r.toString()).isEqualTo("error: " + message + "\nusage: rangekv workload run --help\n");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void badOptions_failWithOneLine() {
    usageError(run("tpcc"), "unknown workload 'tpcc' (known: kv, ycsb)");
    usageError(run("kv", "--threads", "-3"), "--threads must be at least 1, got -3");
    usageError(run("kv", "--phases", "insert,ycsb-z"),
        "unknown phase 'ycsb-z' (known: " + PhaseSpec.KNOWN + ")");
    usageError(run("kv", "--phases", "read"), "phase 'read' needs existing keys: add --load N or an insert phase before it");
    usageError(run("kv", "--duration", "soon"),
        "Invalid value for option '--duration': 'soon' is not a duration (e.g. 500ms, 20s, 2m, 1h)");
    usageError(run("kv", "--duration", "0s"), "--duration must be more than 0");
    CliRun seeds = CliRun.of("workload", "run", "kv", "--seeds", "nohost");
    assertThat(seeds.exit()).isEqualTo(2);
    assertThat(seeds.err()).startsWith("error: --cluster address 'nohost' is not HOST:PORT\n");
  }

  @Test
  void kvPhases_runAndSummarise() {
    CliRun r = run("kv", "--phases", "insert,update,read,scan10", "--threads", "4", "--duration", "2s",
        "--value-bytes", "100", "--seed", "1");
    assertThat(r.exit()).as(r.toString()).isZero();
    for (String phase : List.of("insert", "update", "read", "scan10")) {
      Matcher m = Pattern.compile("== " + phase + ": ([\\d,]+) ops in [\\d.]+ s = [\\d,.]+ ops/s \\(4 threads, after a 0 s warm-up\\)")
          .matcher(r.out());
      assertThat(m.find()).as(phase + " summary in\n" + r.out()).isTrue();
      assertThat(Long.parseLong(m.group(1).replace(",", ""))).as(phase).isPositive();
    }
    assertThat(r.out()).contains("errors 0\n", "latency  p50 ", "whole machine: every process, from /proc/stat");
    assertThat(r.out()).doesNotContain("errors 1", "errors 2");
  }

  @Test
  void ycsbMixes_withJson_printOneDocument() {
    CliRun r = run("ycsb", "--phases", "ycsb-a,ycsb-d,ycsb-e,ycsb-f", "--load", "200", "--threads", "4",
        "--duration", "2s", "--json");
    assertThat(r.exit()).as(r.toString()).isZero();
    String json = r.out().trim();
    assertThat(json.lines().count()).as(r.out()).isEqualTo(1);
    assertThat(json).startsWith("{\"workload\":\"ycsb\",").contains("\"loadKeys\":200", "\"load\":{\"phase\":\"load\"");
    Matcher m = Pattern.compile("\\{\"phase\":\"(ycsb-[a-f])\",.*?\"ops\":(\\d+),.*?\"errors\":(\\d+),").matcher(json);
    List<String> seen = new ArrayList<>();
    while (m.find()) {
      seen.add(m.group(1));
      assertThat(Long.parseLong(m.group(2))).as(m.group(1)).isPositive();
      assertThat(m.group(3)).as(m.group(1)).isEqualTo("0");
    }
    assertThat(seen).containsExactly("ycsb-a", "ycsb-d", "ycsb-e", "ycsb-f");
    assertThat(json).contains("\"read-modify-write\":{\"ops\":", "\"scan\":{\"ops\":", "\"insert\":{\"ops\":");
    assertThat(r.err()).contains("-- ycsb-a: measured 2 s, 4 threads x 1 in flight");
  }
}
