package dev.rangekv.server.stats;


import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.proto.Mutation;
import dev.rangekv.proto.ScanRequest;
import dev.rangekv.proto.ScanResponse;
import dev.rangekv.proto.convert.ProtoValues;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * The node's per-range load, recorded by the KV service on the leader once a request was served (a
 * read answered, a write's proposal applied) and drained once per heartbeat interval.
 *
 * <p>What counts: every key a request touched, with weight 1 (a multiGet or batch counts each of its
 * keys). A scan counts as many reads as rows it returned (at least 1, an empty scan still cost a seek)
 * and is sampled once, at its middle row's key with that weight: the middle row is the one key that
 * best stands for where a scan's load lies (its start would pile every scan's load onto its first key,
 * often the range start, which no split can use). Puts also feed the append signal: a put counts as an
 * append when its key lies above the range's greatest key at the interval's start, looked up from
 * the store once per interval by the range's first write, before that write is proposed.
 *
 * <p>Cost on the request path: a lock-free table lookup, one uncontended stripe lock per request, the
 * sampler's O(log capacity) offer per key (and the {@link Key} it keeps). Boundary effects: a request
 * racing a drain lands in either interval (or, rarely, in neither: when its range was idle until then
 * and is forgotten by that drain); a write applied before the interval's baseline was read (by another
 * write) counts as no append. Thread-safe.
 */
public final class LoadRecorder {
  /** Priority sample size per range (the controller wants >= 100 sampled keys for a load split). */
  public static final int DEFAULT_CAPACITY = 128;
  /** Lock stripes per range: enough for the few gRPC and consensus threads that serve one range at once. */
  public static final int DEFAULT_STRIPES = 4;

  private final int capacity;
  private final int stripes;
  private final SplittableRandom seeds;
  private final TailBaseline.Lookup baselines;
  private final RangeIdMap<RangeLoad> ranges = new RangeIdMap<>();
  private long intervalStart;

  /**
   * @param capacity sampled keys kept per range and interval
   * @param stripes lock stripes per range, a power of two
   * @param seed seeds every sampler's random source (a fixed seed replays a single-threaded run)
   * @param baselines where the append baseline of a range comes from
   * @param startNanos when the first interval starts (a {@code System.nanoTime()} value)
   */
  public LoadRecorder(int capacity, int stripes, long seed, TailBaseline.Lookup baselines, long startNanos) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be >= 1, got " + capacity);
    }
    if (Integer.bitCount(stripes) != 1) {
      throw new IllegalArgumentException("stripes must be a power of two, got " + stripes);
    }
    this.capacity = capacity;
    this.stripes = stripes;
    this.seeds = new SplittableRandom(seed);
    this.baselines = Objects.requireNonNull(baselines, "baselines");
    this.intervalStart = startNanos;
  }

  /** A recorder with the default capacity and stripes and a random seed. */
  public static LoadRecorder create(TailBaseline.Lookup baselines, long startNanos) {
    return new LoadRecorder(DEFAULT_CAPACITY, DEFAULT_STRIPES, new SplittableRandom().nextLong(), baselines, startNanos);
  }

  private RangeLoad range(long rangeId) {
    return ranges.getOrCreate(rangeId, id -> {
      synchronized (seeds) {
        return new RangeLoad(capacity, stripes, seeds.split());
      }
    });
  }

  /** A get of {@code key} was served. */
  public void recordGet(long rangeId, ByteString key) {
    RangeLoad.Stripe s = range(rangeId).acquire();
    try {
      s.read(ProtoValues.key(key), 1);
    } finally {
      s.unlock();
    }
  }

  /** A multiGet of {@code keys} was served. */
  public void recordMultiGet(long rangeId, List<ByteString> keys) {
    if (keys.isEmpty()) {
      return;
    }
    RangeLoad.Stripe s = range(rangeId).acquire();
    try {
      for (ByteString k : keys) {
        s.read(ProtoValues.key(k), 1);
      }
    } finally {
      s.unlock();
    }
  }

  /** A scan was served with {@code response}'s rows. */
  public void recordScan(long rangeId, ScanRequest request, ScanResponse response) {
    int rows = response.getEntriesCount();
    // lo, not hi, for an empty scan: hi is exclusive and may be the next range's start
    ByteString at = rows == 0 ? request.getLo() : response.getEntries(rows / 2).getKey();
    RangeLoad.Stripe s = range(rangeId).acquire();
    try {
      s.read(ProtoValues.key(at), Math.max(1, rows));
    } finally {
      s.unlock();
    }
  }

  /**
   * Called before a write to {@code rangeId} is proposed: the interval's first write looks up the
   * range's greatest key, so the write itself is not yet in it. A range this node does not hold leaves
   * no trace.
   */
  public void beforeWrite(long rangeId) {
    RangeLoad load = ranges.get(rangeId);
    if (load != null && !load.needsBaseline()) {
      return;
    }
    TailBaseline b = baselines.baseline(rangeId);
    if (b.known()) {
      range(rangeId).baseline(b);
    }
  }

  /**
   * A write of {@code mutations} to {@code rangeId} was applied; {@code succeeded} false when a check
   * failed (the batch wrote nothing, but its load still counts). Bytes written are what the mutations
   * carried: a put's key and value, a delete's key, a range delete's two bounds.
   */
  public void recordWrite(long rangeId, List<Mutation> mutations, boolean succeeded) {
    RangeLoad load = range(rangeId);
    TailBaseline baseline = load.baseline();
    RangeLoad.Stripe s = load.acquire();
    try {
      for (Mutation m : mutations) {
        switch (m.getOpCase()) {
          case PUT -> {
            Key k = ProtoValues.key(m.getPut().getKey());
            s.write(k, m.getPut().getKey().size() + m.getPut().getValue().size());
            if (succeeded) {
              s.put(k, baseline);
            }
          }
          case DELETE -> s.write(ProtoValues.key(m.getDelete()), m.getDelete().size());
          case DELETE_RANGE -> s.write(ProtoValues.key(m.getDeleteRange().getLo()),
              m.getDeleteRange().getLo().size() + m.getDeleteRange().getHi().size());
          case CHECK, OP_NOT_SET -> {
            // a check is part of its write (a CAS is one write); an empty mutation is refused earlier
          }
        }
      }
    } finally {
      s.unlock();
    }
  }

  /**
   * Returns every range's load since the previous drain and starts a new interval. Ranges that saw no
   * load are left out (and forgotten: a range that moved away stops taking memory).
   */
  public synchronized LoadInterval drain(long nowNanos) {
    long interval = Math.max(0, nowNanos - intervalStart);
    intervalStart = nowNanos;
    Map<Long, RangeLoadInterval> out = new HashMap<>();
    List<Long> idle = new ArrayList<>();
    ranges.forEach((id, load) -> {
      RangeLoadInterval r = load.drain(id);
      if (r.isIdle()) {
        idle.add(id);
      } else {
        out.put(id, r);
      }
    });
    ranges.removeAll(idle.stream().mapToLong(Long::longValue).toArray());
    return new LoadInterval(interval, out);
  }
}
