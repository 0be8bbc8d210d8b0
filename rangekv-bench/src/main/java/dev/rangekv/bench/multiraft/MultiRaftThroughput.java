package dev.rangekv.bench.multiraft;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Closed-loop write throughput of the spike cluster, then a crash and a check that every acknowledged
 * write is on a majority of the stores. Usage: {@code MultiRaftThroughput PER_GROUP|NODE_WIDE groups
 * threads warmupSeconds measureSeconds}. Prints one line of figures.
 */
public final class MultiRaftThroughput {
  private MultiRaftThroughput() {}

  public static void main(String[] args) throws Exception {
    System.setProperty("org.slf4j.simpleLogger.log.io.microraft", "warn");
    Runtime runtime = Runtime.valueOf(args[0]);
    int groups = Integer.parseInt(args[1]);
    int threads = Integer.parseInt(args[2]);
    Duration warmup = Duration.ofSeconds(Long.parseLong(args[3]));
    Duration measure = Duration.ofSeconds(Long.parseLong(args[4]));
    Path dir = Files.createTempDirectory("multiraft-spike");
    try {
      int javaBefore = Cpu.javaThreads();
      SpikeCluster cluster = SpikeCluster.start(runtime, groups, dir, false);
      cluster.awaitLeaders(Duration.ofSeconds(60));
      int nodeThreads = (Cpu.javaThreads() - javaBefore) / SpikeCluster.NODES;
      Cpu[] cpu = new Cpu[2];
      NodeCounters[] counters = new NodeCounters[2];
      ClosedLoop.Result r = ClosedLoop.run(cluster, threads, warmup, measure, () -> {
        cpu[0] = read();
        counters[0] = cluster.counters();
      }, () -> {
        cpu[1] = read();
        counters[1] = cluster.counters();
      });
      cluster.crash();
      Cpu used = cpu[1].minus(cpu[0]);
      NodeCounters c = counters[1].minus(counters[0]);
      Set<String> lost = SafetyCheck.lostOnMajority(dir, SpikeCluster.NODES, r.acknowledged());
      double ops = r.ops();
      System.out.printf(
          "runtime=%s groups=%d threads=%d ops/s=%.0f p50=%.2fms p99=%.2fms cpu/write: process=%.3fms "
              + "machine=%.3fms walSyncs/write=%.3f batches/write=%.3f msgs/write=%.2f envelopes/write=%.2f "
              + "threads/node=%d acked=%d lostOnMajority=%d unsyncedSends=%d stripeTaskFailures=%d%n",
          runtime, groups, threads, r.opsPerSecond(), r.percentileMillis(0.50), r.percentileMillis(0.99),
          used.processNanos() / 1e6 / ops, used.machineBusyNanos() / 1e6 / ops, c.walSyncs() / ops,
          c.batches() / ops, c.messages() / ops, c.envelopes() / ops, nodeThreads, r.acknowledged().size(),
          lost.size(), counters[1].unsynced(), counters[1].failures());
      if (!lost.isEmpty() || counters[1].unsynced() > 0) {
        throw new IllegalStateException("safety violated lost=" + SafetyCheck.sample(lost) + " unsyncedSends="
            + counters[1].unsynced());
      }
    } finally {
      deleteTree(dir);
    }
  }

  private static Cpu read() {
    try {
      return Cpu.now();
    } catch (IOException e) {
      throw new IllegalStateException("cannot read cpu", e);
    }
  }

  static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
