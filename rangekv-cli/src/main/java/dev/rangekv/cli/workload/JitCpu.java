package dev.rangekv.cli.workload;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * CPU time of the HotSpot JIT compiler threads of every JVM on the machine, from Linux's
 * {@code /proc/<pid>/task/<tid>/stat}: the threads named {@code C1 CompilerThread<n>} and {@code C2
 * CompilerThread<n>} (the kernel keeps the first 15 characters of a thread's name). On a small machine
 * shared by nodes and the workload, the JIT is a large part of the machine-wide CPU for minutes after a
 * start, so a figure measured then says as much about the warm-up as about the data path.
 *
 * <p>A compiler thread that exits between two readings takes its ticks with it (HotSpot stops extra
 * compiler threads when their queues stay empty; the first of each kind stays): the difference then
 * undercounts, never overcounts.
 *
 * @param ticksByThread user + system time of each compiler thread ({@code pid/tid}), in USER_HZ ticks
 */
public record JitCpu(Map<String, Long> ticksByThread) {
  private static final Path PROC = Path.of("/proc");

  public JitCpu {
    ticksByThread = Map.copyOf(ticksByThread);
  }

  /** Whether {@code comm}, a thread name as the kernel keeps it, is a HotSpot JIT compiler thread. */
  static boolean isCompiler(String comm) {
    return comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre");
  }

  /**
   * User + system ticks of the thread whose stat line this is, when it is a compiler thread. The name
   * sits between the first {@code (} and the last {@code )} (it may hold spaces and parentheses);
   * utime and stime are the 12th and 13th fields after it.
   */
  static OptionalLong compilerTicks(String statLine) {
    int open = statLine.indexOf('(');
    int close = statLine.lastIndexOf(')');
    if (open < 0 || close < open || !isCompiler(statLine.substring(open + 1, close))) {
      return OptionalLong.empty();
    }
    String[] f = statLine.substring(close + 1).trim().split("\\s+");
    if (f.length < 13) {
      throw new IllegalArgumentException("stat line has " + f.length + " fields after the name: " + statLine);
    }
    return OptionalLong.of(Long.parseLong(f[11]) + Long.parseLong(f[12]));
  }

  /** The compiler threads' counters now, or empty where there is no /proc (not Linux). */
  public static Optional<JitCpu> read() {
    if (!Files.isDirectory(PROC.resolve("self/task"))) {
      return Optional.empty();
    }
    Map<String, Long> ticks = new HashMap<>();
    try (DirectoryStream<Path> pids = Files.newDirectoryStream(PROC, p -> p.getFileName().toString().matches("\\d+"))) {
      for (Path pid : pids) {
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(pid.resolve("task"))) {
          for (Path task : tasks) {
            compilerTicks(Files.readString(task.resolve("stat")))
                .ifPresent(t -> ticks.put(pid.getFileName() + "/" + task.getFileName(), t));
          }
        } catch (IOException | RuntimeException e) {
          // the process or thread ended while being read: it no longer counts
        }
      }
    } catch (IOException e) {
      return Optional.empty();
    }
    return Optional.of(new JitCpu(ticks));
  }

  /** Compiler CPU seconds between {@code earlier} and this reading (threads started since count whole). */
  public double secondsSince(JitCpu earlier) {
    long sum = 0;
    for (Map.Entry<String, Long> e : ticksByThread.entrySet()) {
      sum += Math.max(0, e.getValue() - earlier.ticksByThread.getOrDefault(e.getKey(), 0L));
    }
    return sum / (double) MachineCpu.TICKS_PER_SECOND;
  }
}
