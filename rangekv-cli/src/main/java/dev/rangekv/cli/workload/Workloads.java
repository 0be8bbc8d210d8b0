package dev.rangekv.cli.workload;

import java.util.List;
import java.util.Optional;

/**
 * The named workloads: their default phases and preload, and the check that every phase that reads
 * existing keys has some. Pure.
 */
public final class Workloads {
  /** The names {@code workload run} accepts. */
  public static final List<String> NAMES = List.of("kv", "ycsb");

  /** Keys the ycsb workload loads when {@code --load} is not given (YCSB's default recordcount is 1000). */
  public static final long YCSB_DEFAULT_LOAD = 10_000;

  private Workloads() {}

  /** The default phase list of {@code workload}; throws naming the known workloads. */
  public static String defaultPhases(String workload) {
    return switch (check(workload)) {
      case "kv" -> "insert,update,read,scan10";
      default -> "ycsb-a,ycsb-b,ycsb-c,ycsb-f,ycsb-d,ycsb-e";
    };
  }

  /** The keys to load before the phases: {@code --load} when given, else the workload's default. */
  public static long defaultLoad(String workload, Optional<Long> load) {
    return load.orElse(check(workload).equals("ycsb") ? YCSB_DEFAULT_LOAD : 0L);
  }

  /**
   * The first phase that would read keys while none exist (no load and no insert phase before it),
   * as an error message; empty when every phase has keys to work on.
   */
  public static Optional<String> missingKeys(List<PhaseSpec> phases, long load) {
    boolean have = load > 0;
    for (PhaseSpec p : phases) {
      if (p.needsExistingKeys() && !have) {
        return Optional.of("phase '" + p.name() + "' needs existing keys: add --load N or an insert phase before it");
      }
      have |= p.mix().containsKey(OpKind.INSERT);
    }
    return Optional.empty();
  }

  private static String check(String workload) {
    if (!NAMES.contains(workload)) {
      throw new IllegalArgumentException("unknown workload '" + workload + "' (known: " + String.join(", ", NAMES) + ")");
    }
    return workload;
  }
}
