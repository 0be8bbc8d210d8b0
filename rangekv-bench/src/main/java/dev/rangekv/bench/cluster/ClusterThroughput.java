package dev.rangekv.bench.cluster;

import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.proto.GetRequest;
import dev.rangekv.proto.PutRequest;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.WriteId;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Replicated write and read throughput of a 3-node in-JVM cluster (replication 3) with 16-byte keys
 * and 100-byte values, closed loop: {@code threads} clients each with one request in flight, sent
 * straight to the range's leader. Usage: {@code ClusterThroughput <ranges> <threads> <seconds> [unsafe-flush|fsync]
 * [warmup-seconds]}: the warm-up runs writes then reads, unmeasured, so the JIT has compiled the path. Each
 * phase also reports the machine's CPU time per operation (all processes, from /proc/stat).
 */
public final class ClusterThroughput {
  private static final long KEY_SPACE = 10_000_000_000_000_000L; // 16 decimal digits

  private static final java.util.Map<String, Long> errorKinds = new java.util.concurrent.ConcurrentHashMap<>();

  private ClusterThroughput() {}

  public static void main(String[] args) throws Exception {
    int ranges = args.length > 0 ? Integer.parseInt(args[0]) : 1;
    int threads = args.length > 1 ? Integer.parseInt(args[1]) : 16;
    int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 10;
    boolean unsafeFlush = args.length > 3 && args[3].equals("unsafe-flush");
    int warmup = args.length > 4 ? Integer.parseInt(args[4]) : 0;
    Path dir = Files.createTempDirectory("rangekv-bench");
    try (LocalCluster cluster = LocalCluster.start(3, dir, RaftTuning.defaults().withUnsafeFlush(unsafeFlush));
        BenchCluster bench = new BenchCluster(cluster)) {
      bench.awaitLeaders();
      List<Key> splits = new ArrayList<>();
      for (int i = 1; i < ranges; i++) {
        splits.add(Key.utf8(key(i * (KEY_SPACE / ranges))));
      }
      bench.split(splits);
      System.out.printf("cluster ready: nodes=3 replication=3 ranges=%d threads=%d seconds=%d raftLogFsync=%s%n",
          bench.ranges.size(), threads, seconds, unsafeFlush ? "async (unsafe-flush)" : "before ack");
      if (warmup > 0) {
        run(bench, threads, warmup, true);
        run(bench, threads, warmup, false);
        System.out.printf("warm-up done: %d s of writes, %d s of reads%n", warmup, warmup);
      }
      report("write", run(bench, threads, seconds, true));
      report("read", run(bench, threads, seconds, false));
    } finally {
      BenchCluster.deleteRecursively(dir);
    }
  }

  static String key(long n) {
    return String.format("%016d", n);
  }

  record Result(long ops, long errors, double seconds, long[] latenciesMicros, double cpuMillis) {}

  /** Busy CPU time of the whole machine so far, in ms (all cores; /proc/stat, USER_HZ = 100). */
  static double machineCpuMillis() {
    try {
      String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      long busy = 0;
      for (int i = 1; i < f.length && i <= 8; i++) {
        if (i != 4 && i != 5) { // idle, iowait
          busy += Long.parseLong(f[i]);
        }
      }
      return busy * 10.0;
    } catch (java.io.IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  static Result run(BenchCluster bench, int threads, int seconds, boolean write) throws InterruptedException {
    AtomicLong errors = new AtomicLong();
    errorKinds.clear();
    List<long[]> samples = new ArrayList<>();
    List<Thread> workers = new ArrayList<>();
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    ByteString value = ByteString.copyFrom(new byte[100]);
    long[] counts = new long[threads];
    long t0 = System.nanoTime();
    double cpu0 = machineCpuMillis();
    for (int t = 0; t < threads; t++) {
      int id = t;
      long[] lat = new long[1 << 20];
      samples.add(lat);
      Thread w = new Thread(() -> {
        byte[] clientId = new byte[16];
        ThreadLocalRandom.current().nextBytes(clientId);
        long requestId = 0;
        int n = 0;
        while (System.nanoTime() < deadline) {
          String k = key(ThreadLocalRandom.current().nextLong(KEY_SPACE));
          RangeDescriptorProto d = bench.lookup(Key.utf8(k));
          String leader = bench.leaders.get(d.getRangeId());
          long start = System.nanoTime();
          try {
            if (write) {
              bench.kv(leader).put(PutRequest.newBuilder().setHeader(BenchCluster.header(d))
                  .setWriteId(WriteId.newBuilder().setClientId(ByteString.copyFrom(clientId)).setRequestId(++requestId))
                  .setKey(ByteString.copyFromUtf8(k)).setValue(value).build());
            } else {
              bench.kv(leader).get(GetRequest.newBuilder().setHeader(BenchCluster.header(d))
                  .setKey(ByteString.copyFromUtf8(k)).build());
            }
            if (n < lat.length) {
              lat[n] = (System.nanoTime() - start) / 1000;
            }
            n++;
          } catch (StatusRuntimeException e) {
            errors.incrementAndGet();
            errorKinds.merge(RangeKvErrors.fromThrowable(e).map(er -> er.getKindCase().name() + ":" + er.getMessage())
                .orElse(e.getStatus().getCode().name()), 1L, Long::sum);
            RangeKvErrors.fromThrowable(e).filter(er -> er.hasNotLeader() && !er.getNotLeader().getLeaderAddress().isEmpty())
                .ifPresent(er -> bench.leaders.put(d.getRangeId(), er.getNotLeader().getLeaderAddress()));
          }
        }
        counts[id] = n;
      }, "bench-" + t);
      workers.add(w);
      w.start();
    }
    for (Thread w : workers) {
      w.join();
    }
    double elapsed = (System.nanoTime() - t0) / 1e9;
    double cpu = machineCpuMillis() - cpu0;
    long total = Arrays.stream(counts).sum();
    long[] all = new long[(int) Math.min(total, Integer.MAX_VALUE - 8)];
    int pos = 0;
    for (int t = 0; t < threads; t++) {
      int n = (int) Math.min(counts[t], samples.get(t).length);
      System.arraycopy(samples.get(t), 0, all, pos, n);
      pos += n;
    }
    long[] lat = Arrays.copyOf(all, pos);
    Arrays.sort(lat);
    return new Result(total, errors.get(), elapsed, lat, cpu);
  }

  static void report(String what, Result r) {
    long[] l = r.latenciesMicros();
    System.out.printf("%s: ops=%d errors=%d seconds=%.1f throughput=%.0f ops/s latency_us p50=%d p99=%d max=%d"
            + " machine_cpu_ms_per_op=%.3f%n",
        what, r.ops(), r.errors(), r.seconds(), r.ops() / r.seconds(),
        pct(l, 0.50), pct(l, 0.99), l.length == 0 ? 0 : l[l.length - 1], r.cpuMillis() / Math.max(1, r.ops()));
    errorKinds.forEach((k, n) -> System.out.printf("  error x%d %s%n", n, k));
  }

  private static long pct(long[] sorted, double p) {
    return sorted.length == 0 ? 0 : sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  }
}
