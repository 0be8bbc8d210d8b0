package dev.rangekv.bench.client;

import dev.rangekv.client.ClientOptions;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyCodec;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.admin.NodeAdminServiceGrpc;
import dev.rangekv.proto.admin.SplitRangeRequest;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * End-to-end client figures against an in-JVM 3-node LocalCluster on loopback: single-key get latency
 * and a 1,000-key batch get over 100 ranges (one multi-get per range, in parallel). Not JMH: the cluster
 * shares the JVM and the 2 cores, so read the figures as orders of magnitude.
 * Run: {@code java -cp rangekv-bench/target/benchmarks.jar dev.rangekv.bench.client.ClientEndToEndHarness}.
 */
public final class ClientEndToEndHarness {
  private ClientEndToEndHarness() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    Path dir = Files.createTempDirectory("rangekv-client-bench");
    try (LocalCluster cluster = LocalCluster.start(3, dir, RaftTuning.forTests())) {
      List<String> seeds = new ArrayList<>();
      for (int i = 0; i < cluster.size(); i++) {
        seeds.add(cluster.config(i).clientAddress());
      }
      try (RangeKvClient client = RangeKvClient.connect(seeds, ClientOptions.defaults())) {
        awaitServing(client);
        List<Key> keys = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
          keys.add(KeyCodec.bigEndian(i * 1000L));
        }
        for (int r = 1; r < 100; r++) {
          split(client, cluster, KeyCodec.bigEndian(r * 10_000L));
        }
        for (Key k : keys) {
          client.put(k, new byte[100]);
        }
        client.refreshRoutes();
        System.out.printf("ranges=%d%n", client.routeTable().map().size());
        for (int i = 0; i < 50; i++) {
          client.get(keys.get(i));
          client.batchGet(keys);
        }
        long[] gets = new long[rounds * 5];
        for (int i = 0; i < gets.length; i++) {
          long t = System.nanoTime();
          client.get(keys.get(i % keys.size()));
          gets[i] = System.nanoTime() - t;
        }
        long[] batches = new long[rounds];
        for (int i = 0; i < rounds; i++) {
          long t = System.nanoTime();
          client.batchGet(keys);
          batches[i] = System.nanoTime() - t;
        }
        report("get", gets);
        report("batchGet(1000 keys, 100 ranges)", batches);
      }
    }
  }

  private static void awaitServing(RangeKvClient client) {
    for (int i = 0; ; i++) {
      try {
        client.get(Key.utf8("ready?"));
        return;
      } catch (RuntimeException e) {
        if (i > 20) {
          throw e;
        }
      }
    }
  }

  /** Splits at {@code at} through the range's leader (the client's cache names it after a refresh). */
  private static void split(RangeKvClient client, LocalCluster cluster, Key at) throws InterruptedException {
    for (int attempt = 0; attempt < 50; attempt++) {
      client.refreshRoutes();
      RangeDescriptor d = client.rangeOf(at);
      String leader = client.routeTable().leader(d.rangeId());
      Optional<String> address = Optional.ofNullable(client.routeTable().addresses().get(leader));
      if (address.isPresent()) {
        ManagedChannel ch = ManagedChannelBuilder.forTarget(address.get()).usePlaintext().build();
        try {
          NodeAdminServiceGrpc.newBlockingStub(ch).withDeadlineAfter(5, TimeUnit.SECONDS).splitRange(
              SplitRangeRequest.newBuilder()
                  .setHeader(RangeHeader.newBuilder().setRangeId(d.rangeId()).setGeneration(d.generation()))
                  .setSplitKey(ProtoValues.bytes(at)).setChildRangeId(cluster.splitChildId()).build());
          return;
        } catch (RuntimeException e) {
          // not the leader any more, or the child is not ready yet: look again
        } finally {
          ch.shutdownNow();
        }
      }
      Thread.sleep(20);
    }
    throw new IllegalStateException("could not split at " + at);
  }

  private static void report(String name, long[] nanos) {
    long[] s = nanos.clone();
    Arrays.sort(s);
    System.out.printf("%s: n=%d p50=%.1f us p90=%.1f us p99=%.1f us mean=%.1f us%n", name, s.length,
        s[s.length / 2] / 1e3, s[(int) (s.length * 0.9)] / 1e3, s[(int) (s.length * 0.99)] / 1e3,
        Arrays.stream(s).average().orElse(0) / 1e3);
  }
}
