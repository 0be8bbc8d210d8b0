package dev.rangekv.bench.multiraft;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The cost of many idle groups: threads per node and process CPU over a quiet period once every group
 * has a leader. Usage: {@code IdleGroups PER_GROUP|NODE_WIDE groups seconds}.
 */
public final class IdleGroups {
  private IdleGroups() {}

  public static void main(String[] args) throws Exception {
    System.setProperty("org.slf4j.simpleLogger.log.io.microraft", "warn");
    Runtime runtime = Runtime.valueOf(args[0]);
    int groups = Integer.parseInt(args[1]);
    Duration quiet = Duration.ofSeconds(Long.parseLong(args[2]));
    Path dir = Files.createTempDirectory("multiraft-idle");
    try {
      int javaBefore = Cpu.javaThreads();
      int osBefore = Cpu.osThreads();
      long started = System.nanoTime();
      SpikeCluster cluster = SpikeCluster.start(runtime, groups, dir, false);
      cluster.awaitLeaders(Duration.ofMinutes(5));
      double electedSeconds = (System.nanoTime() - started) / 1e9;
      int javaThreads = Cpu.javaThreads() - javaBefore;
      int osThreads = Cpu.osThreads() - osBefore;
      Cpu before = Cpu.now();
      NodeCounters c0 = cluster.counters();
      Thread.sleep(quiet.toMillis());
      Cpu used = Cpu.now().minus(before);
      NodeCounters c = cluster.counters().minus(c0);
      cluster.crash();
      double secs = quiet.toSeconds();
      System.out.printf(
          "runtime=%s groups=%d allLeadersAfter=%.1fs javaThreads/node=%.1f osThreads/node=%.1f "
              + "idleCpu(process, 3 nodes)=%.1f%% of a core, %.2f%% per node; walSyncs/s=%.1f msgs/s=%.0f "
              + "envelopes/s=%.0f heapUsed=%dMB%n",
          runtime, groups, electedSeconds, javaThreads / 3.0, osThreads / 3.0,
          used.processNanos() / 1e7 / secs, used.processNanos() / 1e7 / secs / 3, c.walSyncs() / secs,
          c.messages() / secs, c.envelopes() / secs,
          (java.lang.Runtime.getRuntime().totalMemory() - java.lang.Runtime.getRuntime().freeMemory()) >> 20);
    } finally {
      MultiRaftThroughput.deleteTree(dir);
    }
  }
}
