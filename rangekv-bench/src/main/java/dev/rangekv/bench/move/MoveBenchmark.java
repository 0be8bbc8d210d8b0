package dev.rangekv.bench.move;

import com.google.protobuf.ByteString;
import dev.rangekv.proto.BatchRequest;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.proto.KvServiceGrpc;
import dev.rangekv.proto.Mutation;
import dev.rangekv.proto.PutRequest;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.WriteId;
import dev.rangekv.proto.admin.NodeAdminServiceGrpc;
import dev.rangekv.proto.admin.SplitRangeRequest;
import dev.rangekv.server.move.NodeAdminClient;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Moves one range of {@code MiB} MiB (random 4 KiB values) between nodes of a 4-node in-JVM cluster,
 * once without and once with a bandwidth limit, while {@code threads} clients write 100-byte values to
 * two other ranges (on the 3 other nodes); reports the move and snapshot-add times and the other
 * ranges' write throughput before and during each move.
 * Usage: {@code MoveBenchmark [MiB=64] [limitMiBps=16] [threads=4]}.
 */
public final class MoveBenchmark {
  private static final int VALUE_BYTES = 4096;

  private MoveBenchmark() {}

  public static void main(String[] args) throws Exception {
    int mib = args.length > 0 ? Integer.parseInt(args[0]) : 64;
    long limit = (args.length > 1 ? Long.parseLong(args[1]) : 16) << 20;
    int threads = args.length > 2 ? Integer.parseInt(args[2]) : 4;
    Path dir = Files.createTempDirectory("rangekv-move-bench");
    try (LocalCluster cluster = LocalCluster.start(4, dir, RaftTuning.defaults());
        Bench bench = new Bench(cluster)) {
      bench.split("mv/");
      bench.split("mw");
      long t0 = System.nanoTime();
      long loaded = bench.load(mib);
      System.out.printf("loaded range mv/: %d MiB of %d-byte random values in %.1f s%n", loaded >> 20, VALUE_BYTES,
          (System.nanoTime() - t0) / 1e9);
      long rangeId = bench.mover.locate(bench.rangeAt("mv/").getRangeId()).orElseThrow().range().getRangeId();

      Writers writers = new Writers(bench, threads);
      writers.start();
      double idle = writers.rate(Duration.ofSeconds(5));
      System.out.printf("other ranges, no move: %.0f writes/s (%d threads)%n", idle, threads);

      String n3 = cluster.config(2).clientAddress();
      String n4 = cluster.config(3).clientAddress();
      runMove(bench, writers, rangeId, "n3", n4, 0, "unlimited");
      runMove(bench, writers, rangeId, "n4", n3, limit, (limit >> 20) + " MiB/s");
      writers.close();
      System.out.printf("writes acknowledged=%d errors=%d%n", writers.acked.get(), writers.errors.get());
    }
  }

  private static void runMove(Bench bench, Writers writers, long rangeId, String from, String toAddress, long limit,
      String label) {
    long ackedBefore = writers.acked.get();
    long t0 = System.nanoTime();
    RangeDescriptorProto added = bench.mover.addReplica(rangeId, toAddress, limit);
    double addSeconds = (System.nanoTime() - t0) / 1e9;
    String leader = bench.mover.locate(rangeId).orElseThrow().leaderNodeId();
    if (leader.equals(from)) {
      String to = added.getReplicasList().stream().filter(r -> r.getAddress().equals(toAddress)).findFirst()
          .orElseThrow().getNodeId();
      bench.mover.transferLeader(rangeId, to);
    }
    RangeDescriptorProto done = bench.mover.removeReplica(rangeId, from);
    double seconds = (System.nanoTime() - t0) / 1e9;
    double rate = (writers.acked.get() - ackedBefore) / seconds;
    System.out.printf("move %s -> %s (%s): add (snapshot + catch-up) %.2f s, whole move %.2f s, replicas now %s;"
            + " other ranges meanwhile %.0f writes/s%n", from, toAddress, label, addSeconds, seconds,
        done.getReplicasList().stream().map(r -> r.getNodeId()).toList(), rate);
  }

  /** Channels, range lookups and a mover over a local cluster. */
  static final class Bench implements AutoCloseable {
    final LocalCluster cluster;
    final NodeAdminClient mover;
    private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();

    Bench(LocalCluster cluster) {
      this.cluster = cluster;
      List<String> seeds = new ArrayList<>();
      for (int i = 0; i < cluster.size(); i++) {
        seeds.add(cluster.config(i).clientAddress());
      }
      this.mover = new NodeAdminClient(seeds, Duration.ofMinutes(5));
    }

    ManagedChannel channel(String address) {
      return channels.computeIfAbsent(address, a -> NettyChannelBuilder.forTarget(a).usePlaintext()
          .maxInboundMessageSize(8 << 20).build());
    }

    /** The range holding {@code key} and its leader's address (refreshed from the nodes). */
    NodeAdminClient.Located locate(String key) {
      for (int attempt = 0; ; attempt++) {
        RangeDescriptorProto d = rangeAt(key);
        NodeAdminClient.Located l = mover.locate(d.getRangeId()).orElse(null);
        if (l != null && !l.leaderAddress().isEmpty()) {
          return l;
        }
        sleep(50);
      }
    }

    /** The newest descriptor holding {@code key}, waiting (up to a minute) for new ranges' groups. */
    RangeDescriptorProto rangeAt(String key) {
      ByteString k = ByteString.copyFromUtf8(key);
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
      while (System.nanoTime() < deadline) {
        RangeDescriptorProto best = null;
        for (long id : knownRangeIds()) {
          RangeDescriptorProto d = mover.locate(id).map(NodeAdminClient.Located::range).orElse(null);
          if (d != null && compare(d.getStart(), k) <= 0 && (d.getEndInfinite() || compare(k, d.getEnd()) < 0)
              && (best == null || d.getGeneration() > best.getGeneration())) {
            best = d;
          }
        }
        if (best != null) {
          return best;
        }
        sleep(50);
      }
      throw new IllegalStateException("no range holds " + key);
    }

    private List<Long> knownRangeIds() {
      List<Long> ids = new ArrayList<>();
      for (int i = 0; i < cluster.size(); i++) {
        cluster.node(i).directory().replicas().forEach(r -> ids.add(r.rangeId()));
      }
      return ids.stream().distinct().toList();
    }

    private static int compare(ByteString a, ByteString b) {
      return ByteString.unsignedLexicographicalComparator().compare(a, b);
    }

    void split(String at) {
      while (true) {
        NodeAdminClient.Located l = locate(at);
        if (l.range().getStart().toStringUtf8().equals(at)) {
          return;
        }
        try {
          NodeAdminServiceGrpc.newBlockingStub(channel(l.leaderAddress())).withDeadlineAfter(20, TimeUnit.SECONDS)
              .splitRange(SplitRangeRequest.newBuilder().setHeader(header(l.range()))
                  .setSplitKey(ByteString.copyFromUtf8(at)).setChildRangeId(cluster.splitChildId()).build());
        } catch (StatusRuntimeException e) {
          sleep(100);
        }
      }
    }

    /** Writes {@code mib} MiB into range "mv/" in 1 MiB batches; returns the value bytes written. */
    long load(int mib) {
      Random random = new Random(7);
      int perBatch = (1 << 20) / VALUE_BYTES;
      long bytes = 0;
      int key = 0;
      ByteString clientId = ByteString.copyFrom(new byte[16]);
      for (int b = 0; b < mib; b++) {
        BatchRequest.Builder batch = BatchRequest.newBuilder();
        for (int i = 0; i < perBatch; i++) {
          byte[] v = new byte[VALUE_BYTES];
          random.nextBytes(v);
          batch.addMutations(Mutation.newBuilder().setPut(KeyValueProto.newBuilder()
              .setKey(ByteString.copyFromUtf8(String.format("mv/%08d", key++))).setValue(ByteString.copyFrom(v))));
          bytes += VALUE_BYTES;
        }
        WriteId id = WriteId.newBuilder().setClientId(clientId).setRequestId(b + 1L).build();
        while (true) {
          NodeAdminClient.Located l = locate("mv/");
          try {
            KvServiceGrpc.newBlockingStub(channel(l.leaderAddress())).withDeadlineAfter(30, TimeUnit.SECONDS)
                .batch(batch.setHeader(header(l.range())).setWriteId(id).build());
            break;
          } catch (StatusRuntimeException e) {
            sleep(100);
          }
        }
      }
      return bytes;
    }

    static RangeHeader header(RangeDescriptorProto d) {
      return RangeHeader.newBuilder().setRangeId(d.getRangeId()).setGeneration(d.getGeneration()).build();
    }

    static void sleep(long ms) {
      try {
        Thread.sleep(ms);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }

    @Override
    public void close() {
      mover.close();
      channels.values().forEach(ManagedChannel::shutdownNow);
    }
  }

  /** Closed-loop writers of 100-byte values to the ranges below "mv/" and above "mw". */
  static final class Writers {
    final AtomicLong acked = new AtomicLong();
    final AtomicLong errors = new AtomicLong();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Thread> threads = new ArrayList<>();

    Writers(Bench bench, int count) {
      for (int t = 0; t < count; t++) {
        String prefix = t % 2 == 0 ? "a/" : "z/";
        Thread th = new Thread(() -> run(bench, prefix), "writer-" + t);
        th.setDaemon(true);
        threads.add(th);
      }
    }

    void start() {
      threads.forEach(Thread::start);
    }

    double rate(Duration window) throws InterruptedException {
      long before = acked.get();
      long t0 = System.nanoTime();
      Thread.sleep(window.toMillis());
      return (acked.get() - before) / ((System.nanoTime() - t0) / 1e9);
    }

    private void run(Bench bench, String prefix) {
      byte[] clientId = new byte[16];
      ThreadLocalRandom.current().nextBytes(clientId);
      long requestId = 0;
      ByteString value = ByteString.copyFrom(new byte[100]);
      NodeAdminClient.Located l = bench.locate(prefix);
      while (!stop.get()) {
        String k = prefix + ThreadLocalRandom.current().nextInt(1_000_000);
        try {
          KvServiceGrpc.newBlockingStub(bench.channel(l.leaderAddress())).withDeadlineAfter(10, TimeUnit.SECONDS)
              .put(PutRequest.newBuilder().setHeader(Bench.header(l.range()))
                  .setWriteId(WriteId.newBuilder().setClientId(ByteString.copyFrom(clientId)).setRequestId(++requestId))
                  .setKey(ByteString.copyFromUtf8(k)).setValue(value).build());
          acked.incrementAndGet();
        } catch (StatusRuntimeException e) {
          errors.incrementAndGet();
          l = bench.locate(prefix);
        }
      }
    }

    void close() throws InterruptedException {
      stop.set(true);
      for (Thread t : threads) {
        t.join(30_000);
      }
    }
  }
}
