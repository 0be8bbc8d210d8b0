package dev.rangekv.bench.cluster;

import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.proto.KvServiceGrpc;
import dev.rangekv.proto.ListRangesRequest;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.ReplicaStatus;
import dev.rangekv.proto.admin.NodeAdminServiceGrpc;
import dev.rangekv.proto.admin.SplitRangeRequest;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.server.node.LocalCluster;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A bench-side view of a {@link LocalCluster}: channels per node, the range map with each range's
 * leader address, and splitting into many ranges. Leaders are assumed stable during a run.
 */
final class BenchCluster implements AutoCloseable {
  private final LocalCluster cluster;
  private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();
  volatile List<RangeDescriptorProto> ranges = List.of();
  final Map<Long, String> leaders = new ConcurrentHashMap<>();

  BenchCluster(LocalCluster cluster) {
    this.cluster = cluster;
  }

  ManagedChannel channel(String address) {
    return channels.computeIfAbsent(address, a -> NettyChannelBuilder.forTarget(a).usePlaintext().build());
  }

  KvServiceGrpc.KvServiceBlockingStub kv(String address) {
    return KvServiceGrpc.newBlockingStub(channel(address)).withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  static RangeHeader header(RangeDescriptorProto d) {
    return RangeHeader.newBuilder().setRangeId(d.getRangeId()).setGeneration(d.getGeneration()).build();
  }

  /** Re-reads ranges and leaders from every node; true when every range has a known leader. */
  boolean refresh() {
    Map<Long, RangeDescriptorProto> newest = new HashMap<>();
    Map<Long, String> leaderOf = new HashMap<>();
    for (int i = 0; i < cluster.size(); i++) {
      String address = cluster.config(i).clientAddress();
      for (ReplicaStatus s : KvServiceGrpc.newBlockingStub(channel(address))
          .listRanges(ListRangesRequest.getDefaultInstance()).getReplicasList()) {
        newest.merge(s.getRange().getRangeId(), s.getRange(), (a, b) -> a.getGeneration() >= b.getGeneration() ? a : b);
        if (s.getLeader()) {
          leaderOf.put(s.getRange().getRangeId(), address);
        }
      }
    }
    List<RangeDescriptorProto> sorted = new ArrayList<>(newest.values());
    sorted.sort(Comparator.comparing(p -> ProtoValues.descriptor(p).start()));
    ranges = List.copyOf(sorted);
    leaders.putAll(leaderOf);
    return !sorted.isEmpty() && sorted.stream().allMatch(d -> leaderOf.containsKey(d.getRangeId()));
  }

  /** The range holding {@code key} (binary search on starts). */
  RangeDescriptorProto lookup(Key key) {
    List<RangeDescriptorProto> rs = ranges;
    int lo = 0;
    int hi = rs.size() - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (ProtoValues.key(rs.get(mid).getStart()).compareTo(key) <= 0) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return rs.get(lo);
  }

  /** Splits at each key in turn, waiting for leaders as needed. */
  void split(List<Key> at) throws InterruptedException {
    for (Key k : at) {
      while (true) {
        awaitLeaders();
        RangeDescriptorProto d = lookup(k);
        if (ProtoValues.key(d.getStart()).equals(k)) {
          break;
        }
        try {
          NodeAdminServiceGrpc.newBlockingStub(channel(leaders.get(d.getRangeId())))
              .withDeadlineAfter(20, TimeUnit.SECONDS)
              .splitRange(SplitRangeRequest.newBuilder().setHeader(header(d)).setSplitKey(ProtoValues.bytes(k))
                  .setChildRangeId(cluster.splitChildId()).build());
          refresh();
        } catch (StatusRuntimeException e) {
          Thread.sleep(50);
          refresh();
        }
      }
    }
    awaitLeaders();
  }

  void awaitLeaders() throws InterruptedException {
    long deadline = System.currentTimeMillis() + 120_000;
    while (!refresh()) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("ranges without leader after 120 s");
      }
      Thread.sleep(50);
    }
  }

  /** Removes a run's temporary data directory. */
  static void deleteRecursively(java.nio.file.Path dir) throws java.io.IOException {
    try (var paths = java.nio.file.Files.walk(dir)) {
      for (java.nio.file.Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        java.nio.file.Files.deleteIfExists(p);
      }
    }
  }

  static ByteString bytes(String s) {
    return ByteString.copyFromUtf8(s);
  }

  @Override
  public void close() {
    channels.values().forEach(ManagedChannel::shutdownNow);
  }
}
