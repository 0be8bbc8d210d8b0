package dev.rangekv.server.node;

import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.CompareAndSetRequest;
import dev.rangekv.proto.CompareAndSetResponse;
import dev.rangekv.proto.DeleteRequest;
import dev.rangekv.proto.GetRequest;
import dev.rangekv.proto.GetResponse;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.proto.KvServiceGrpc;
import dev.rangekv.proto.ListRangesRequest;
import dev.rangekv.proto.ListRangesResponse;
import dev.rangekv.proto.PutRequest;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.ReplicaProto;
import dev.rangekv.proto.ReplicaStatus;
import dev.rangekv.proto.ScanRequest;
import dev.rangekv.proto.ScanResponse;
import dev.rangekv.proto.WriteId;
import dev.rangekv.proto.admin.NodeAdminServiceGrpc;
import dev.rangekv.proto.admin.SplitRangeRequest;
import dev.rangekv.proto.admin.SplitRangeResponse;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.convert.RangeKvErrors;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;

/**
 * A small test-side router over the proto API: caches descriptors, sends each request to the range's
 * leader guess, follows RANGE_MOVED / NOT_LEADER / RANGE_NOT_FOUND, and retries (writes with the same
 * write id) until a deadline. One router per writer thread: request ids are sequential per router.
 */
final class TestRouter implements AutoCloseable {
  private final List<String> seeds;
  private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();
  private final Map<Long, String> leaders = new ConcurrentHashMap<>();
  private volatile List<RangeDescriptorProto> ranges = List.of();
  private final ByteString clientId;
  private final AtomicLong requestIds = new AtomicLong();
  private final long deadlineMillis;
  final AtomicLong retries = new AtomicLong();
  /** A split's child id: the cluster's (0 with a meta range: the leader asks it). */
  private final java.util.function.LongSupplier childIds;

  TestRouter(List<String> seeds, long deadlineMillis, java.util.function.LongSupplier childIds) {
    this.seeds = List.copyOf(seeds);
    this.deadlineMillis = deadlineMillis;
    this.childIds = childIds;
    byte[] id = new byte[16];
    ThreadLocalRandom.current().nextBytes(id);
    this.clientId = ByteString.copyFrom(id);
  }

  static TestRouter of(LocalCluster cluster) {
    List<String> seeds = new ArrayList<>();
    for (int i = 0; i < cluster.size(); i++) {
      seeds.add(cluster.config(i).clientAddress());
    }
    return new TestRouter(seeds, 30_000, cluster::splitChildId);
  }

  /** The child id a split request of this router carries (0: the leader asks the meta range). */
  long splitChildId() {
    return childIds.getAsLong();
  }

  KvServiceGrpc.KvServiceBlockingStub kv(String address) {
    return KvServiceGrpc.newBlockingStub(channel(address)).withDeadlineAfter(5, TimeUnit.SECONDS);
  }

  NodeAdminServiceGrpc.NodeAdminServiceBlockingStub admin(String address) {
    return NodeAdminServiceGrpc.newBlockingStub(channel(address)).withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  private ManagedChannel channel(String address) {
    return channels.computeIfAbsent(address, a -> NettyChannelBuilder.forTarget(a).usePlaintext().build());
  }

  WriteId nextWriteId() {
    return WriteId.newBuilder().setClientId(clientId).setRequestId(requestIds.incrementAndGet()).build();
  }

  static RangeHeader header(RangeDescriptorProto d) {
    return RangeHeader.newBuilder().setRangeId(d.getRangeId()).setGeneration(d.getGeneration()).build();
  }

  /** Runs {@code op} against the leader of the range holding {@code key}, following redirects. */
  <T> T call(Key key, BiFunction<String, RangeDescriptorProto, T> op) {
    long deadline = System.currentTimeMillis() + deadlineMillis;
    int attempt = 0;
    StatusRuntimeException last = null;
    while (System.currentTimeMillis() < deadline) {
      RangeDescriptorProto d = lookup(key).orElse(null);
      if (d == null) {
        refresh();
        d = lookup(key).orElse(null);
        if (d == null) {
          pause(attempt++);
          continue;
        }
      }
      String address = leaders.getOrDefault(d.getRangeId(), d.getReplicas(0).getAddress());
      try {
        return op.apply(address, d);
      } catch (StatusRuntimeException e) {
        last = e;
        retries.incrementAndGet();
        Optional<RangeKvError> typed = RangeKvErrors.fromThrowable(e);
        if (typed.isEmpty()) {
          rotate(d, address); // node down or transport failure
          pause(attempt++);
          continue;
        }
        RangeKvError error = typed.get();
        switch (error.getKindCase()) {
          case RANGE_MOVED -> {
            learn(error.getRangeMoved().getCurrentList());
            forgetStaleLeaders(error.getRangeMoved().getCurrentList());
            if (attempt > 2) {
              pause(attempt); // e.g. a range frozen for a merge: wait for the merged descriptor
            }
            attempt++;
          }
          case NOT_LEADER -> {
            String hint = error.getNotLeader().getLeaderAddress();
            if (hint.isEmpty()) {
              rotate(d, address);
              pause(attempt++);
            } else {
              leaders.put(d.getRangeId(), hint);
            }
          }
          case RANGE_NOT_FOUND -> {
            rotate(d, address);
            if (attempt % 3 == 2) {
              refresh();
            }
            pause(attempt++);
          }
          case UNAVAILABLE -> pause(attempt++);
          default -> throw e;
        }
      }
    }
    throw new IllegalStateException("gave up on key " + key + " after " + deadlineMillis + " ms", last);
  }

  /** A leader hint naming a node no longer among a range's replicas (it moved away) is dropped. */
  private void forgetStaleLeaders(List<RangeDescriptorProto> fresh) {
    for (RangeDescriptorProto d : fresh) {
      String hint = leaders.get(d.getRangeId());
      if (hint != null && d.getReplicasList().stream().noneMatch(r -> r.getAddress().equals(hint))) {
        leaders.remove(d.getRangeId());
      }
    }
  }

  private void rotate(RangeDescriptorProto d, String address) {
    List<ReplicaProto> replicas = d.getReplicasList();
    int i = 0;
    while (i < replicas.size() && !replicas.get(i).getAddress().equals(address)) {
      i++;
    }
    leaders.put(d.getRangeId(), replicas.get((i + 1) % replicas.size()).getAddress());
  }

  private static void pause(int attempt) {
    try {
      Thread.sleep(Math.min(200, 10L << Math.min(attempt, 5)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  Optional<RangeDescriptorProto> lookup(Key key) {
    for (RangeDescriptorProto d : ranges) {
      if (ProtoValues.descriptor(d).contains(key)) {
        return Optional.of(d);
      }
    }
    return Optional.empty();
  }

  List<RangeDescriptorProto> ranges() {
    return ranges;
  }

  /** Adds fresher descriptors, dropping cached ones they overlap. */
  synchronized void learn(List<RangeDescriptorProto> fresh) {
    List<RangeDescriptorProto> next = new ArrayList<>(fresh);
    for (RangeDescriptorProto old : ranges) {
      RangeDescriptor o = ProtoValues.descriptor(old);
      boolean overlapped = fresh.stream().map(ProtoValues::descriptor).anyMatch(f -> f.overlaps(o.start(), o.end()));
      if (!overlapped) {
        next.add(old);
      }
    }
    next.sort(Comparator.comparing(p -> ProtoValues.descriptor(p).start()));
    ranges = List.copyOf(next);
  }

  /** Rebuilds the cache from every reachable node's replicas: newest generation per range wins. */
  synchronized void refresh() {
    Map<Long, RangeDescriptorProto> newest = new java.util.HashMap<>();
    for (String seed : seeds) {
      try {
        ListRangesResponse r = kv(seed).listRanges(ListRangesRequest.getDefaultInstance());
        for (ReplicaStatus s : r.getReplicasList()) {
          newest.merge(s.getRange().getRangeId(), s.getRange(),
              (a, b) -> a.getGeneration() >= b.getGeneration() ? a : b);
          if (s.getLeader()) {
            leaders.put(s.getRange().getRangeId(), seed);
          }
        }
      } catch (StatusRuntimeException e) {
        // node down: the others answer
      }
    }
    List<RangeDescriptorProto> byGeneration = new ArrayList<>(newest.values());
    byGeneration.sort(Comparator.comparingLong(RangeDescriptorProto::getGeneration).reversed());
    List<RangeDescriptorProto> tiling = new ArrayList<>();
    for (RangeDescriptorProto p : byGeneration) {
      RangeDescriptor d = ProtoValues.descriptor(p);
      if (tiling.stream().map(ProtoValues::descriptor).noneMatch(t -> t.overlaps(d.start(), d.end()))) {
        tiling.add(p);
      }
    }
    tiling.sort(Comparator.comparing(p -> ProtoValues.descriptor(p).start()));
    ranges = List.copyOf(tiling);
  }

  // ---- convenience operations (UTF-8 keys and values) ----

  void put(String key, String value) {
    WriteId id = nextWriteId();
    call(Key.utf8(key), (a, d) -> kv(a).put(PutRequest.newBuilder().setHeader(header(d)).setWriteId(id)
        .setKey(ByteString.copyFromUtf8(key)).setValue(ByteString.copyFromUtf8(value)).build()));
  }

  void delete(String key) {
    WriteId id = nextWriteId();
    call(Key.utf8(key), (a, d) -> kv(a).delete(DeleteRequest.newBuilder().setHeader(header(d)).setWriteId(id)
        .setKey(ByteString.copyFromUtf8(key)).build()));
  }

  Optional<String> get(String key) {
    GetResponse r = call(Key.utf8(key), (a, d) -> kv(a).get(GetRequest.newBuilder().setHeader(header(d))
        .setKey(ByteString.copyFromUtf8(key)).build()));
    return r.getFound() ? Optional.of(r.getValue().toStringUtf8()) : Optional.empty();
  }

  /** Sets key to value if it currently holds expected (absent when null). */
  CompareAndSetResponse cas(String key, String expected, String value) {
    WriteId id = nextWriteId();
    return call(Key.utf8(key), (a, d) -> kv(a).compareAndSet(CompareAndSetRequest.newBuilder()
        .setHeader(header(d)).setWriteId(id).setKey(ByteString.copyFromUtf8(key))
        .setExpectAbsent(expected == null).setExpectedValue(ByteString.copyFromUtf8(expected == null ? "" : expected))
        .setNewValue(ByteString.copyFromUtf8(value)).build()));
  }

  /** Every entry in [lo, hi) across ranges, in order, at most limit (0: all). */
  List<KeyValueProto> scan(Key lo, RangeEnd hi, int limit) {
    List<KeyValueProto> out = new ArrayList<>();
    Key cursor = lo;
    while (true) {
      Key from = cursor;
      int want = limit == 0 ? 0 : limit - out.size();
      RangeEnd[] pieceEnd = new RangeEnd[1];
      ScanResponse r = call(from, (a, d) -> {
        RangeEnd end = RangeEnd.min(hi, ProtoValues.descriptor(d).end());
        pieceEnd[0] = end;
        return kv(a).scan(ScanRequest.newBuilder().setHeader(header(d)).setLo(ProtoValues.bytes(from))
            .setHi(ProtoValues.endBytes(end)).setHiInfinite(end.isInfinite()).setLimit(want).build());
      });
      out.addAll(r.getEntriesList());
      if ((limit != 0 && out.size() >= limit) || pieceEnd[0].equals(hi) || pieceEnd[0].isInfinite()) {
        return out;
      }
      cursor = pieceEnd[0].key();
    }
  }

  /** Splits the range holding {@code at} there; a no-op when a range already starts at it. */
  void split(Key at) {
    long deadline = System.currentTimeMillis() + deadlineMillis;
    while (true) {
      try {
        SplitRangeResponse r = call(at, (a, d) -> admin(a).splitRange(SplitRangeRequest.newBuilder()
            .setHeader(header(d)).setSplitKey(ProtoValues.bytes(at)).setChildRangeId(childIds.getAsLong()).build()));
        learn(List.of(r.getLeft(), r.getRight()));
        return;
      } catch (StatusRuntimeException e) {
        Optional<RangeKvError> typed = RangeKvErrors.fromThrowable(e);
        if (typed.isPresent() && typed.get().hasInvalidArgument()
            && typed.get().getInvalidArgument().getLimit().equals("split_key")) {
          return;
        }
        if (System.currentTimeMillis() > deadline) {
          throw e;
        }
      }
    }
  }

  @Override
  public void close() {
    channels.values().forEach(ManagedChannel::shutdownNow);
  }
}
