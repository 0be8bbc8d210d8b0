package dev.rangekv.cli.workload;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.Optional;

/**
 * The measured window of one phase: operations completed in it (warm-up excluded), their latencies
 * per kind, failures by kind, and the whole machine's CPU seconds over the window. Immutable.
 *
 * @param seconds the measured window's length
 * @param cpuSeconds machine-wide busy CPU seconds in the window (every process), empty off Linux
 * @param jitSeconds the part of {@code cpuSeconds} spent by the JIT compiler threads of the machine's JVMs
 *     ({@link JitCpu}), empty off Linux
 * @param loadAverage the 1-minute load average at the window's end
 */
public record PhaseResult(String name, int threads, double warmupSeconds, double seconds,
    Map<OpKind, LatencyHistogram.Snapshot> latencies, LatencyHistogram.Snapshot total, Map<String, Long> errors,
    long conflicts, Optional<Double> cpuSeconds, Optional<Double> jitSeconds, Optional<Double> loadAverage) {

  public PhaseResult {
    EnumMap<OpKind, LatencyHistogram.Snapshot> kinds = new EnumMap<>(OpKind.class);
    kinds.putAll(latencies);
    latencies = Collections.unmodifiableMap(kinds); // enum order, for stable output
    errors = Collections.unmodifiableMap(new TreeMap<>(errors));
  }

  /** Operations the store acknowledged in the window. */
  public long ops() {
    return total.count();
  }

  public double opsPerSecond() {
    return seconds > 0 ? ops() / seconds : 0;
  }

  public long errorCount() {
    return errors.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Machine-wide CPU milliseconds per acknowledged operation; empty without /proc or without operations. */
  public Optional<Double> cpuMillisPerOp() {
    return ops() == 0 ? Optional.empty() : cpuSeconds.map(s -> s * 1000 / ops());
  }

  /** Machine-wide CPU milliseconds per operation without the JIT compilers' share (what a warm machine would spend). */
  public Optional<Double> cpuMillisPerOpWithoutJit() {
    return ops() == 0 || jitSeconds.isEmpty() ? Optional.empty()
        : cpuSeconds.map(s -> Math.max(0, s - jitSeconds.get()) * 1000 / ops());
  }
}
