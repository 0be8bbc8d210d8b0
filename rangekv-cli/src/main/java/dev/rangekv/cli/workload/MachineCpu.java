package dev.rangekv.cli.workload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Machine-wide CPU time from Linux's {@code /proc/stat} first line (all processes, all cores): busy =
 * user + nice + system + irq + softirq + steal, in clock ticks of {@link #TICKS_PER_SECOND} (USER_HZ,
 * which the kernel fixes at 100 for this file on every mainstream architecture). Guest time is already
 * inside user. Idle and iowait are not busy.
 *
 * @param busyTicks ticks spent running anything since boot
 * @param totalTicks busy plus idle plus iowait
 */
public record MachineCpu(long busyTicks, long totalTicks) {
  public static final int TICKS_PER_SECOND = 100;
  private static final Path PROC_STAT = Path.of("/proc/stat");
  private static final Path PROC_LOADAVG = Path.of("/proc/loadavg");

  /** Parses the aggregate {@code cpu} line of /proc/stat's text. */
  public static MachineCpu parse(String procStat) {
    for (String line : procStat.split("\n")) {
      if (line.startsWith("cpu ")) {
        String[] f = line.trim().split("\\s+");
        if (f.length < 8) {
          throw new IllegalArgumentException("/proc/stat cpu line has " + (f.length - 1) + " fields: " + line);
        }
        long user = Long.parseLong(f[1]);
        long nice = Long.parseLong(f[2]);
        long system = Long.parseLong(f[3]);
        long idle = Long.parseLong(f[4]);
        long iowait = Long.parseLong(f[5]);
        long irq = Long.parseLong(f[6]);
        long softirq = Long.parseLong(f[7]);
        long steal = f.length > 8 ? Long.parseLong(f[8]) : 0;
        long busy = user + nice + system + irq + softirq + steal;
        return new MachineCpu(busy, busy + idle + iowait);
      }
    }
    throw new IllegalArgumentException("/proc/stat has no aggregate cpu line");
  }

  /** The machine's counters now, or empty where there is no /proc/stat (not Linux). */
  public static Optional<MachineCpu> read() {
    try {
      return Optional.of(parse(Files.readString(PROC_STAT)));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** The 1-minute load average from /proc/loadavg, or empty where there is none. */
  public static Optional<Double> loadAverage() {
    try {
      return Optional.of(parseLoadAverage(Files.readString(PROC_LOADAVG)));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  static double parseLoadAverage(String text) {
    return Double.parseDouble(text.trim().split("\\s+")[0]);
  }

  /** CPU seconds spent by the whole machine between {@code earlier} and this reading. */
  public double busySecondsSince(MachineCpu earlier) {
    return (busyTicks - earlier.busyTicks) / (double) TICKS_PER_SECOND;
  }
}
