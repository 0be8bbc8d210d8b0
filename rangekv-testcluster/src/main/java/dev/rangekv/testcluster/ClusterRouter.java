package dev.rangekv.testcluster;

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
import dev.rangekv.testkit.Await;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A small test-side router over the proto API: caches descriptors (from the nodes' own listings),
 * sends each request to the range's leader guess, follows RANGE_MOVED / NOT_LEADER / RANGE_NOT_FOUND,
 * and retries (writes with the same write id) until a deadline. One router per writer thread: request
 * ids are sequential per router. The cache and leader guesses are safe to share between threads.
 */
public final class ClusterRouter implements AutoCloseable {
  private final NodeStubs stubs = new NodeStubs();
  private final NodeListings listings;
  private final Map<Long, String> leaders = new ConcurrentHashMap<>();
  private volatile List<RangeDescriptorProto> ranges = List.of();
  private final ByteString clientId;
  private final AtomicLong requestIds = new AtomicLong();
  private final AtomicLong retries = new AtomicLong();
  private final long deadlineMillis;
  private final LongSupplier childIds;

  /**
   * A router over the nodes at {@code seeds} (read at each refresh), giving up on a call after {@code
   * deadline}; a split asks {@code childIds} for the child's range id (0: the leader asks the meta range).
   */
  public ClusterRouter(Supplier<List<String>> seeds, Duration deadline, LongSupplier childIds) {
    this.listings = new NodeListings(stubs, seeds);
    this.deadlineMillis = deadline.toMillis();
    this.childIds = childIds;
    byte[] id = new byte[16];
    ThreadLocalRandom.current().nextBytes(id);
    this.clientId = ByteString.copyFrom(id);
  }

  /** The child id a split request of this router carries (0: the leader asks the meta range). */
  public long splitChildId() {
    return childIds.getAsLong();
  }

  /** The nodes' own listings, through this router's channels. */
  public NodeListings listings() {
    return listings;
  }

  public KvServiceGrpc.KvServiceBlockingStub kv(String address) {
    return stubs.kv(address);
  }

  public NodeAdminServiceGrpc.NodeAdminServiceBlockingStub admin(String address) {
    return stubs.admin(address);
  }

  /** Calls retried after a failure or a redirect, over this router's life. */
  public long retries() {
    return retries.get();
  }

  public WriteId nextWriteId() {
    return WriteId.newBuilder().setClientId(clientId).setRequestId(requestIds.incrementAndGet()).build();
  }

  public static RangeHeader header(RangeDescriptorProto d) {
    return RangeHeader.newBuilder().setRangeId(d.getRangeId()).setGeneration(d.getGeneration()).build();
  }

  /** Runs {@code op} against the leader of the range holding {@code key}, following redirects. */
  public <T> T call(Key key, BiFunction<String, RangeDescriptorProto, T> op) {
    long deadline = System.currentTimeMillis() + deadlineMillis;
    int attempt = 0;
    StatusRuntimeException last = null;
    while (System.currentTimeMillis() < deadline) {
      RangeDescriptorProto d = lookup(key).orElse(null);
      if (d == null) {
        refresh();
        d = lookup(key).orElse(null);
        if (d == null) {
          backoff(attempt++);
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
          backoff(attempt++);
          continue;
        }
        RangeKvError error = typed.get();
        switch (error.getKindCase()) {
          case RANGE_MOVED -> {
            learn(error.getRangeMoved().getCurrentList());
            forgetStaleLeaders(error.getRangeMoved().getCurrentList());
            if (attempt > 2) {
              backoff(attempt); // e.g. a range frozen for a merge: wait for the merged descriptor
            }
            attempt++;
          }
          case NOT_LEADER -> {
            String hint = error.getNotLeader().getLeaderAddress();
            if (hint.isEmpty()) {
              rotate(d, address);
              backoff(attempt++);
            } else {
              leaders.put(d.getRangeId(), hint);
            }
          }
          case RANGE_NOT_FOUND -> {
            rotate(d, address);
            if (attempt % 3 == 2) {
              refresh();
            }
            backoff(attempt++);
          }
          case UNAVAILABLE -> backoff(attempt++);
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

  /** A retry's backoff, as any client's: 10 ms doubling up to 200 ms (the caller's deadline bounds the loop). */
  private static void backoff(int attempt) {
    try {
      Thread.sleep(Math.min(200, 10L << Math.min(attempt, 5)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The cached descriptor of the range holding {@code key}. */
  public Optional<RangeDescriptorProto> lookup(Key key) {
    for (RangeDescriptorProto d : ranges) {
      if (ProtoValues.descriptor(d).contains(key)) {
        return Optional.of(d);
      }
    }
    return Optional.empty();
  }

  /** The cached descriptors, in key order. */
  public List<RangeDescriptorProto> ranges() {
    return ranges;
  }

  /** Adds fresher descriptors, dropping cached ones they overlap. */
  public synchronized void learn(List<RangeDescriptorProto> fresh) {
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

  /** Rebuilds the cache from every reachable node's replicas (newest generation per range wins) and their leaders. */
  public synchronized void refresh() {
    Map<String, List<ReplicaStatus>> byNode = listings.replicasByNode();
    byNode.forEach((address, replicas) -> replicas.stream().filter(ReplicaStatus::getLeader)
        .forEach(s -> leaders.put(s.getRange().getRangeId(), address)));
    ranges = NodeListings.newestTiling(byNode);
  }

  /** Refreshes until the cache has {@code n} ranges (a split's child counts once its group runs); returns them. */
  public List<RangeDescriptorProto> awaitRanges(int n, Duration timeout) {
    Await.until(timeout, Duration.ofMillis(20), n + " ranges", () -> {
      refresh();
      return ranges.size() == n;
    });
    return ranges;
  }

  // ---- convenience operations (UTF-8 keys and values) ----

  public void put(String key, String value) {
    WriteId id = nextWriteId();
    call(Key.utf8(key), (a, d) -> kv(a).put(PutRequest.newBuilder().setHeader(header(d)).setWriteId(id)
        .setKey(ByteString.copyFromUtf8(key)).setValue(ByteString.copyFromUtf8(value)).build()));
  }

  public void delete(String key) {
    WriteId id = nextWriteId();
    call(Key.utf8(key), (a, d) -> kv(a).delete(DeleteRequest.newBuilder().setHeader(header(d)).setWriteId(id)
        .setKey(ByteString.copyFromUtf8(key)).build()));
  }

  public Optional<String> get(String key) {
    GetResponse r = call(Key.utf8(key), (a, d) -> kv(a).get(GetRequest.newBuilder().setHeader(header(d))
        .setKey(ByteString.copyFromUtf8(key)).build()));
    return r.getFound() ? Optional.of(r.getValue().toStringUtf8()) : Optional.empty();
  }

  /** Sets key to value if it currently holds expected (absent when null). */
  public CompareAndSetResponse cas(String key, String expected, String value) {
    WriteId id = nextWriteId();
    return call(Key.utf8(key), (a, d) -> kv(a).compareAndSet(CompareAndSetRequest.newBuilder()
        .setHeader(header(d)).setWriteId(id).setKey(ByteString.copyFromUtf8(key))
        .setExpectAbsent(expected == null).setExpectedValue(ByteString.copyFromUtf8(expected == null ? "" : expected))
        .setNewValue(ByteString.copyFromUtf8(value)).build()));
  }

  /** Every entry in [lo, hi) across ranges, in order, at most limit (0: all). */
  public List<KeyValueProto> scan(Key lo, RangeEnd hi, int limit) {
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

  /**
   * Splits the range holding {@code at} there, on its leader, retrying until this router's deadline;
   * returns the split's answer, or empty when a range already starts at {@code at} (a no-op).
   */
  public Optional<SplitRangeResponse> split(Key at) {
    long deadline = System.currentTimeMillis() + deadlineMillis;
    while (true) {
      try {
        // the leader, not this cache, says whether a range starts at the key: a cached boundary may be gone
        SplitRangeResponse r = call(at, (a, d) -> admin(a).splitRange(SplitRangeRequest.newBuilder()
            .setHeader(header(d)).setSplitKey(ProtoValues.bytes(at)).setChildRangeId(childIds.getAsLong()).build()));
        learn(List.of(r.getLeft(), r.getRight()));
        return Optional.of(r);
      } catch (StatusRuntimeException e) {
        Optional<RangeKvError> typed = RangeKvErrors.fromThrowable(e);
        if (typed.isPresent() && typed.get().hasInvalidArgument()
            && typed.get().getInvalidArgument().getLimit().equals("split_key")) {
          return Optional.empty(); // the range starts at the key already
        }
        if (System.currentTimeMillis() > deadline) {
          throw e;
        }
      }
    }
  }

  @Override
  public void close() {
    stubs.close();
  }
}
