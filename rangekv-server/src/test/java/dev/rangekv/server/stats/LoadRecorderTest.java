package dev.rangekv.server.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.google.protobuf.ByteString;
import dev.rangekv.core.cluster.WeightedKey;
import dev.rangekv.core.key.Key;
import dev.rangekv.proto.Condition;
import dev.rangekv.proto.DeleteRangeSpan;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.proto.Mutation;
import dev.rangekv.proto.ScanRequest;
import dev.rangekv.proto.ScanResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class LoadRecorderTest {
  private static final long R = 7;

  private static LoadRecorder recorder(long seed) {
    return new LoadRecorder(128, 4, seed, id -> TailBaseline.EMPTY, 0);
  }

  @Test
  void everyKeyTouched_countsOnce_andSmallIntervalsAreSampledExactly() {
    LoadRecorder rec = recorder(1);
    rec.recordGet(R, bytes("a"));
    rec.recordMultiGet(R, List.of(bytes("b"), bytes("c"), bytes("d")));
    rec.recordScan(R, ScanRequest.newBuilder().setLo(bytes("e")).setHi(bytes("f")).build(), rows("e1", "e2", "e3", "e4"));
    rec.recordScan(R, ScanRequest.newBuilder().setLo(bytes("x")).setHi(bytes("y")).build(), rows());
    rec.beforeWrite(R);
    rec.recordWrite(R, List.of(check("k"), put("k"), del("l"), deleteRange("m", "n")), true);

    LoadInterval interval = rec.drain(2_000_000_000L);
    RangeLoadInterval r = interval.range(R).orElseThrow();
    assertThat(r.reads()).isEqualTo(1 + 3 + 4 + 1);
    assertThat(r.writes()).isEqualTo(3);
    // bytes the writes carried: the put's key and value, the delete's key, the range delete's bounds
    assertThat(r.writeBytes()).isEqualTo(2 + 1 + 2);
    assertThat(interval.intervalNanos()).isEqualTo(2_000_000_000L);
    assertThat(interval.rate(r.reads())).isEqualTo(4.5);
    // a scan is sampled at its middle row with its rows as weight; an empty one at its start key
    assertThat(r.sampledKeys()).containsExactlyInAnyOrder(
        wk("a", 1), wk("b", 1), wk("c", 1), wk("d", 1), wk("e3", 4), wk("x", 1), wk("k", 1), wk("l", 1), wk("m", 1));
    assertThat(r.tail().writes()).isEqualTo(1);
    assertThat(r.tail().appends()).isEqualTo(1);
    assertThat(r.tail().maxWrittenKey()).contains(Key.utf8("k"));
  }

  @Test
  void aBatchWhoseCheckFailed_countsItsLoad_butNoTailWrites() {
    LoadRecorder rec = recorder(2);
    rec.beforeWrite(R);
    rec.recordWrite(R, List.of(check("k"), put("k")), false);
    RangeLoadInterval r = rec.drain(1).range(R).orElseThrow();
    assertThat(r.writes()).isEqualTo(1);
    assertThat(r.tail().writes()).isZero();
    assertThat(r.tail().maxWrittenKey()).isEmpty();
  }

  @Test
  void aRangeNotHeldHere_leavesNoTrace_andWritesWithoutABaselineCountNoAppends() {
    LoadRecorder rec = new LoadRecorder(128, 4, 6, id -> TailBaseline.UNKNOWN, 0);
    rec.beforeWrite(R);
    assertThat(rec.drain(1).ranges()).isEmpty();
    rec.beforeWrite(R);
    rec.recordWrite(R, List.of(put("k")), true);
    RangeLoadInterval r = rec.drain(2).range(R).orElseThrow();
    assertThat(r.tail().writes()).isEqualTo(1);
    assertThat(r.tail().appends()).isZero();
  }

  @Test
  void drain_resetsCounts_andForgetsIdleRanges() {
    LoadRecorder rec = recorder(3);
    rec.recordGet(R, bytes("a"));
    rec.recordGet(R + 1, bytes("b"));
    assertThat(rec.drain(10).ranges()).containsOnlyKeys(R, R + 1);
    rec.recordGet(R, bytes("a"));
    LoadInterval second = rec.drain(30);
    assertThat(second.intervalNanos()).isEqualTo(20);
    assertThat(second.ranges()).containsOnlyKeys(R);
    assertThat(second.range(R).orElseThrow().reads()).isEqualTo(1);
    assertThat(second.range(R).orElseThrow().writeBytes()).isZero();
    assertThat(rec.drain(40).ranges()).isEmpty();
  }

  /** Fixed seeds: a statistical bound checked on random seeds would fail now and then by design. */
  @Test
  void sampleEstimates_sumToTheOfferedLoad_andSpanSharesFollowIt() {
    for (long seed = 1; seed <= 40; seed++) {
      SplittableRandom g = new SplittableRandom(seed);
      LoadRecorder rec = recorder(seed);
      int n = 2_000 + g.nextInt(18_000);
      int below = 0;
      for (int i = 0; i < n; i++) {
        int k = g.nextInt(1000);
        below += k < 250 ? 1 : 0;
        rec.recordGet(R, bytes(String.format("key%04d", k)));
      }
      List<WeightedKey> sample = rec.drain(1).range(R).orElseThrow().sampledKeys();
      assertThat(sample).hasSizeLessThanOrEqualTo(128);
      double total = sample.stream().mapToDouble(WeightedKey::weight).sum();
      double lowShare = sample.stream().filter(k -> k.key().compareTo(Key.utf8("key0250")) < 0)
          .mapToDouble(WeightedKey::weight).sum() / total;
      // priority sampling with 128 keys: relative error of a total about 1/sqrt(128) (9%)
      assertThat(total).as("seed %d", seed).isCloseTo(n, within(n * 0.3));
      assertThat(lowShare).as("seed %d", seed).isCloseTo((double) below / n, within(0.15));
    }
  }

  @Test
  void oneHotKey_carriesItsShareOfTheSampledLoad() {
    LoadRecorder rec = recorder(4);
    SplittableRandom random = new SplittableRandom(4);
    for (int i = 0; i < 20_000; i++) {
      rec.recordGet(R, random.nextInt(10) < 6 ? bytes("hot") : bytes("cold" + random.nextInt(5000)));
    }
    List<WeightedKey> sample = rec.drain(1).range(R).orElseThrow().sampledKeys();
    double total = sample.stream().mapToDouble(WeightedKey::weight).sum();
    double hot = sample.stream().filter(k -> k.key().equals(Key.utf8("hot"))).mapToDouble(WeightedKey::weight).sum();
    assertThat(hot / total).isCloseTo(0.6, within(0.15));
    // duplicates are kept, so a hot key still leaves a full-size sample behind
    assertThat(sample).hasSizeGreaterThan(100);
  }

  @Test
  @Timeout(30)
  void concurrentRecorders_loseNoCount_andStripedSamplesStillEstimateTheTotal() throws Exception {
    LoadRecorder rec = recorder(5);
    int threads = 4;
    int perThread = 20_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch go = new CountDownLatch(1);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int id = t;
        done.add(pool.submit(() -> {
          go.await();
          for (int i = 0; i < perThread; i++) {
            if (i % 2 == 0) {
              rec.recordGet(R, bytes("t" + id + "/" + i));
            } else {
              rec.beforeWrite(R);
              rec.recordWrite(R, List.of(put("t" + id + "/" + i)), true);
            }
          }
          return null;
        }));
      }
      go.countDown();
      for (Future<?> f : done) {
        f.get(20, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    RangeLoadInterval r = rec.drain(1).range(R).orElseThrow();
    long offered = (long) threads * perThread;
    assertThat(r.reads() + r.writes()).isEqualTo(offered);
    assertThat(r.tail().writes()).isEqualTo(offered / 2);
    assertThat(r.sampledKeys()).hasSizeLessThanOrEqualTo(128);
    double total = r.sampledKeys().stream().mapToDouble(WeightedKey::weight).sum();
    assertThat(total).isCloseTo(offered, within(offered * 0.4));
  }

  // ---- helpers ----

  static ByteString bytes(String s) {
    return ByteString.copyFromUtf8(s);
  }

  static Mutation put(String k) {
    return Mutation.newBuilder().setPut(KeyValueProto.newBuilder().setKey(bytes(k)).setValue(bytes("v"))).build();
  }

  private static Mutation del(String k) {
    return Mutation.newBuilder().setDelete(bytes(k)).build();
  }

  private static Mutation deleteRange(String lo, String hi) {
    return Mutation.newBuilder().setDeleteRange(DeleteRangeSpan.newBuilder().setLo(bytes(lo)).setHi(bytes(hi))).build();
  }

  private static Mutation check(String k) {
    return Mutation.newBuilder().setCheck(Condition.newBuilder().setKey(bytes(k)).setExpectAbsent(true)).build();
  }

  private static ScanResponse rows(String... keys) {
    ScanResponse.Builder b = ScanResponse.newBuilder();
    for (String k : keys) {
      b.addEntries(KeyValueProto.newBuilder().setKey(bytes(k)).setValue(bytes("v")));
    }
    return b.build();
  }

  private static WeightedKey wk(String k, double w) {
    return new WeightedKey(Key.utf8(k), w);
  }
}
