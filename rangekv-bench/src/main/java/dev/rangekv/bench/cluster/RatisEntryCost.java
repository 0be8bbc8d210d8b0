package dev.rangekv.bench.cluster;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * Bare Ratis 3.3.0, no RangeKV code: three servers in this JVM on loopback, one group, a state machine
 * that only records the applied index, and Ratis' own async client keeping {@code outstanding} 100-byte
 * requests in flight (closed loop). With one outstanding every request is its own Raft entry and its
 * own round (append, fsync on a majority, commit, apply, reply), so the CPU per entry is what one Raft
 * round costs Ratis itself here; set beside RangeKV's per-entry figures (BENCHMARKS.md). Ratis defaults
 * except the two keys RangeKV changes for throughput: append-entries compose off, 128 outstanding appends.
 * Usage: {@code RatisEntryCost <outstanding> <warmup-seconds> <seconds>}.
 */
public final class RatisEntryCost {
  private RatisEntryCost() {}

  /** Applies nothing: only the applied index moves, so the figure is Ratis' cost alone. */
  static final class Noop extends BaseStateMachine {
    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
      LogEntryProto e = trx.getLogEntry();
      updateLastAppliedTermIndex(e.getTerm(), e.getIndex());
      return CompletableFuture.completedFuture(Message.EMPTY);
    }
  }

  public static void main(String[] args) throws Exception {
    int outstanding = args.length > 0 ? Integer.parseInt(args[0]) : 1;
    int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 30;
    int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 30;
    Path dir = Files.createTempDirectory("ratis-entry-cost");
    List<RaftPeer> peers = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      int port = dev.rangekv.server.node.NodeConfig.freePort();
      peers.add(RaftPeer.newBuilder().setId("s" + i).setAddress("127.0.0.1:" + port).build());
    }
    RaftGroup group = RaftGroup.valueOf(RaftGroupId.randomId(), peers);
    List<RaftServer> servers = new ArrayList<>();
    try {
      for (RaftPeer peer : peers) {
        RaftProperties p = new RaftProperties();
        RaftServerConfigKeys.setStorageDir(p, List.of(dir.resolve(peer.getId().toString()).toFile()));
        GrpcConfigKeys.Server.setPort(p, Integer.parseInt(peer.getAddress().split(":")[1]));
        GrpcConfigKeys.Server.setLeaderOutstandingAppendsMax(p, 128);
        p.set("raft.server.log.append-entries.compose.enabled", "false");
        RaftServer s = RaftServer.newBuilder().setServerId(peer.getId()).setGroup(group).setProperties(p)
            .setStateMachine(new Noop()).build();
        s.start();
        servers.add(s);
      }
      try (RaftClient client = RaftClient.newBuilder().setProperties(new RaftProperties()).setRaftGroup(group).build()) {
        client.io().send(Message.valueOf("hello")); // waits for the first leader
        System.out.printf("bare ratis: 3 servers, 1 group, outstanding=%d, 100-byte requests, log fsync on%n", outstanding);
        run(client, outstanding, warmup, "warm-up");
        run(client, outstanding, seconds, "measured");
      }
    } finally {
      for (RaftServer s : servers) {
        s.close();
      }
      BenchCluster.deleteRecursively(dir);
    }
  }

  private static void run(RaftClient client, int outstanding, int seconds, String label) throws Exception {
    OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    Message body = Message.valueOf(ByteString.copyFrom(new byte[100]));
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong done = new AtomicLong();
    long[] latencies = new long[1 << 22];
    AtomicLong recorded = new AtomicLong();
    long jit0 = ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
    long switches0 = contextSwitches();
    double machine0 = ClusterThroughput.machineCpuMillis();
    long process0 = os.getProcessCpuTime();
    long start = System.nanoTime();
    List<CompletableFuture<Void>> loops = new ArrayList<>();
    for (int i = 0; i < outstanding; i++) {
      CompletableFuture<Void> loop = new CompletableFuture<>();
      loops.add(loop);
      sendNext(client, body, stop, done, latencies, recorded, loop);
    }
    TimeUnit.SECONDS.sleep(seconds);
    stop.set(true);
    long elapsed = System.nanoTime() - start;
    long ops = done.get();
    double machine = ClusterThroughput.machineCpuMillis() - machine0;
    double process = (os.getProcessCpuTime() - process0) / 1e6;
    long switches = contextSwitches() - switches0;
    long jit = ManagementFactory.getCompilationMXBean().getTotalCompilationTime() - jit0;
    CompletableFuture.allOf(loops.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
    long[] l = Arrays.copyOf(latencies, (int) Math.min(recorded.get(), latencies.length));
    Arrays.sort(l);
    System.out.printf("%s: %d entries in %.1f s = %.0f/s, p50 %.2f ms, p99 %.2f ms; machine CPU %.3f ms/entry,"
            + " this JVM %.3f ms/entry, %.1f context switches/entry, JIT compile time %d ms in the window%n",
        label, ops, elapsed / 1e9, ops / (elapsed / 1e9), pct(l, 0.50), pct(l, 0.99), machine / ops, process / ops,
        (double) switches / ops, jit);
  }

  private static void sendNext(RaftClient client, Message body, AtomicBoolean stop, AtomicLong done, long[] latencies,
      AtomicLong recorded, CompletableFuture<Void> loop) {
    if (stop.get()) {
      loop.complete(null);
      return;
    }
    long t0 = System.nanoTime();
    client.async().send(body).whenComplete((reply, error) -> {
      if (error == null && reply.isSuccess()) {
        done.incrementAndGet();
        long i = recorded.getAndIncrement();
        if (i < latencies.length) {
          latencies[(int) i] = System.nanoTime() - t0;
        }
      }
      sendNext(client, body, stop, done, latencies, recorded, loop);
    });
  }

  private static double pct(long[] sorted, double q) {
    return sorted.length == 0 ? 0 : sorted[(int) Math.min(sorted.length - 1, (long) (q * sorted.length))] / 1e6;
  }

  /** Voluntary and involuntary context switches of every thread of this JVM so far. */
  private static long contextSwitches() throws IOException {
    long sum = 0;
    try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
      for (Path t : (Iterable<Path>) tasks::iterator) {
        try {
          for (String line : Files.readAllLines(t.resolve("status"))) {
            if (line.contains("ctxt_switches:")) {
              sum += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
          }
        } catch (IOException e) { // the thread ended meanwhile
          continue;
        }
      }
    }
    return sum;
  }
}
