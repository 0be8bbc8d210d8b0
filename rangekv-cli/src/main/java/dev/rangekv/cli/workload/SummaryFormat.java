package dev.rangekv.cli.workload;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** Text and JSON forms of live lines and phase summaries. Stateless. */
public final class SummaryFormat {
  /** What the CPU figure counts, said wherever it is printed. */
  public static final String CPU_SCOPE = "whole machine: every process, from /proc/stat";

  private SummaryFormat() {}

  /** One live line: the last interval's rate, percentiles and failures. */
  public static String live(String phase, long elapsedSeconds, boolean warmup, double intervalSeconds,
      LatencyHistogram.Snapshot interval, long intervalErrors) {
    return String.format(Locale.ROOT, "%-8s %5ds %-8s %9.1f ops/s  p50 %s  p95 %s  p99 %s  errors %d",
        phase, elapsedSeconds, warmup ? "warm-up" : "", intervalSeconds > 0 ? interval.count() / intervalSeconds : 0,
        ms(interval.percentile(0.50)), ms(interval.percentile(0.95)), ms(interval.percentile(0.99)), intervalErrors);
  }

  /** The summary of one phase for people. */
  public static List<String> text(PhaseResult r) {
    List<String> lines = new ArrayList<>();
    lines.add(String.format(Locale.ROOT, "== %s: %,d ops in %.1f s = %,.1f ops/s (%d threads, after a %.0f s warm-up)",
        r.name(), r.ops(), r.seconds(), r.opsPerSecond(), r.threads(), r.warmupSeconds()));
    lines.add("   latency  " + percentiles(r.total()));
    if (r.latencies().size() > 1) {
      r.latencies().forEach((kind, s) -> lines.add(String.format(Locale.ROOT, "   %-17s %,10d ops  %s",
          kind.label(), s.count(), percentiles(s))));
    }
    String errors = r.errors().isEmpty() ? "errors 0"
        : "errors " + r.errorCount() + ": " + r.errors().entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(", "));
    lines.add("   " + errors + (r.conflicts() > 0 ? "; compare-and-set conflicts " + r.conflicts() : ""));
    String cpu = r.cpuMillisPerOp()
        .map(ms -> String.format(Locale.ROOT, "cpu %.3f ms/op (%s): %.1f cpu-s over %.1f s", ms, CPU_SCOPE,
            r.cpuSeconds().orElseThrow(), r.seconds())
            + r.jitSeconds().map(j -> String.format(Locale.ROOT, ", of which JIT compilers %.1f cpu-s (%.0f%%; without them %.3f ms/op)",
                j, r.cpuSeconds().get() > 0 ? 100 * j / r.cpuSeconds().get() : 0, r.cpuMillisPerOpWithoutJit().orElseThrow()))
                .orElse(""))
        .orElse("cpu n/a (no /proc/stat or no operations)");
    lines.add("   " + cpu + r.loadAverage().map(l -> String.format(Locale.ROOT, "; load average %.2f", l)).orElse(""));
    return lines;
  }

  /** The summary of one phase as a JSON-ready map (latencies in milliseconds). */
  public static Map<String, Object> json(PhaseResult r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("phase", r.name());
    m.put("threads", r.threads());
    m.put("warmupSeconds", r.warmupSeconds());
    m.put("seconds", r.seconds());
    m.put("ops", r.ops());
    m.put("opsPerSecond", r.opsPerSecond());
    m.put("latencyMs", percentileMap(r.total()));
    Map<String, Object> kinds = new LinkedHashMap<>();
    r.latencies().forEach((kind, s) -> {
      Map<String, Object> k = new LinkedHashMap<>();
      k.put("ops", s.count());
      k.put("latencyMs", percentileMap(s));
      kinds.put(kind.label(), k);
    });
    m.put("byKind", kinds);
    m.put("errors", r.errorCount());
    m.put("errorsByKind", new LinkedHashMap<>(r.errors()));
    m.put("casConflicts", r.conflicts());
    Map<String, Object> cpu = new LinkedHashMap<>();
    cpu.put("scope", CPU_SCOPE);
    cpu.put("cpuSeconds", r.cpuSeconds().orElse(null));
    cpu.put("msPerOp", r.cpuMillisPerOp().orElse(null));
    cpu.put("jitCpuSeconds", r.jitSeconds().orElse(null));
    cpu.put("msPerOpWithoutJit", r.cpuMillisPerOpWithoutJit().orElse(null));
    m.put("cpu", cpu);
    m.put("loadAverage", r.loadAverage().orElse(null));
    return m;
  }

  private static String percentiles(LatencyHistogram.Snapshot s) {
    return String.format(Locale.ROOT, "p50 %s  p95 %s  p99 %s  p99.9 %s  max %s", ms(s.percentile(0.50)),
        ms(s.percentile(0.95)), ms(s.percentile(0.99)), ms(s.percentile(0.999)), ms(s.max()));
  }

  private static Map<String, Object> percentileMap(LatencyHistogram.Snapshot s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("p50", s.percentile(0.50) / 1000.0);
    m.put("p95", s.percentile(0.95) / 1000.0);
    m.put("p99", s.percentile(0.99) / 1000.0);
    m.put("p999", s.percentile(0.999) / 1000.0);
    m.put("max", s.max() / 1000.0);
    return m;
  }

  /** Microseconds as milliseconds for people: {@code 0.42 ms}, {@code 70.1 ms}, {@code 1204 ms}. */
  static String ms(long micros) {
    double ms = micros / 1000.0;
    return ms < 10 ? String.format(Locale.ROOT, "%.2f ms", ms)
        : ms < 1000 ? String.format(Locale.ROOT, "%.1f ms", ms) : String.format(Locale.ROOT, "%.0f ms", ms);
  }
}
