package dev.rangekv.bench.multiraft;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU readings: this process's CPU time (all three nodes and the writers), the machine's busy time
 * from /proc/stat (includes the kernel's own fsync work and anything else running), and thread counts.
 */
record Cpu(long processNanos, long machineBusyNanos) {
  private static final long NANOS_PER_TICK = 10_000_000L; // USER_HZ = 100 on Linux

  static Cpu now() throws IOException {
    long process = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
    String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
    long busy = 0;
    for (int i = 1; i < f.length; i++) {
      if (i != 4 && i != 5) { // idle, iowait
        busy += Long.parseLong(f[i]);
      }
    }
    return new Cpu(process, busy * NANOS_PER_TICK);
  }

  Cpu minus(Cpu o) {
    return new Cpu(processNanos - o.processNanos, machineBusyNanos - o.machineBusyNanos);
  }

  static int javaThreads() {
    return ManagementFactory.getThreadMXBean().getThreadCount();
  }

  static int osThreads() throws IOException {
    try (var tasks = Files.list(Path.of("/proc/self/task"))) {
      return (int) tasks.count();
    }
  }
}
