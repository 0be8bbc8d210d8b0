package dev.rangekv.bench.cluster;

import dev.rangekv.core.key.Key;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What hosting ranges costs: an in-JVM cluster of up to 3 nodes (every node holds every range) is split to each
 * requested range count in turn, and after each the JVM's threads, heap (after GC), JDK direct buffers
 * and RSS are printed, in total and per node (total minus the empty-JVM baseline, divided by the node
 * count). Usage: {@code [-Dnodes=3] RangeCost 10 100 300}; with {@code -Dnodes=1} every range has a
 * single replica (no followers, no heartbeats): a lower bound.
 */
public final class RangeCost {
  private RangeCost() {}

  public static void main(String[] args) throws Exception {
    int nodes = Integer.getInteger("nodes", 3);
    int[] counts = args.length == 0 ? new int[] {10, 100, 300} : Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
    Sample base = Sample.take();
    System.out.println("baseline (empty JVM): " + base);
    Path dir = Files.createTempDirectory("rangekv-cost");
    long keySpace = 1_000_000_000L;
    try (LocalCluster cluster = LocalCluster.start(nodes, dir, RaftTuning.defaults());
        BenchCluster bench = new BenchCluster(cluster)) {
      bench.awaitLeaders();
      for (int count : counts) {
        List<Key> splits = new ArrayList<>();
        for (int i = 1; i < count; i++) {
          splits.add(Key.utf8(String.format("%010d", i * (keySpace / count))));
        }
        long t0 = System.nanoTime();
        bench.split(splits);
        long splitMillis = (System.nanoTime() - t0) / 1_000_000;
        Thread.sleep(3_000); // let cached executors and appenders settle after the last elections
        Sample s = Sample.take();
        System.out.printf("ranges=%d (split in %d ms): total %s; per node: threads=%d heapMiB=%.1f directMiB=%.1f rssMiB=%.0f%n",
            bench.ranges.size(), splitMillis, s,
            (s.threads - base.threads) / nodes, (s.heapMiB - base.heapMiB) / nodes,
            (s.directMiB - base.directMiB) / nodes, (s.rssMiB - base.rssMiB) / nodes);
      }
    } finally {
      BenchCluster.deleteRecursively(dir);
    }
  }

  private record Sample(int threads, double heapMiB, double directMiB, double rssMiB) {
    static Sample take() throws Exception {
      for (int i = 0; i < 3; i++) {
        System.gc();
        Thread.sleep(200);
      }
      double heap = (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) / 1048576.0;
      double direct = 0;
      for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
        if (pool.getName().equals("direct")) {
          direct = pool.getMemoryUsed() / 1048576.0;
        }
      }
      double rss = 0;
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          rss = Long.parseLong(line.replaceAll("\\D", "")) / 1024.0;
        }
      }
      return new Sample(ManagementFactory.getThreadMXBean().getThreadCount(), heap, direct, rss);
    }

    @Override
    public String toString() {
      return String.format("threads=%d heapMiB=%.1f directMiB=%.1f rssMiB=%.0f", threads, heapMiB, directMiB, rssMiB);
    }
  }
}
