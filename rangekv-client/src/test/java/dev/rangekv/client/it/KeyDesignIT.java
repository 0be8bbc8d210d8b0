package dev.rangekv.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.client.KeyValue;
import dev.rangekv.client.keydesign.BucketedKeyspace;
import dev.rangekv.client.keydesign.HotCounter;
import dev.rangekv.client.keydesign.HotKeyLists;
import dev.rangekv.client.scan.ScanOptions;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyCodec;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** BucketedKeyspace scans and HotCounter totals against a real 3-node LocalCluster. */
class KeyDesignIT extends SharedClusterFixture {
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void bucketedScan_equalsTheOrderedScanOfTheSameData() {
    BucketedKeyspace space = new BucketedKeyspace(8);
    for (Key split : KeyCodec.uniformSplitPoints(8)) {
      tc.split(split); // one bucket per range, as a pre-split table would have
    }
    List<String> model = new ArrayList<>();
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    for (long t = 1_000; t < 1_240; t++) {
      Key key = KeyCodec.tuple().addLong(t).build();
      writes.add(client.putAsync(space.key(key), ("e" + t).getBytes()));
      model.add(key.toHex() + "=e" + t);
    }
    writes.forEach(CompletableFuture::join);
    Key lo = KeyCodec.tuple().addLong(1_050).build();
    Key hi = KeyCodec.tuple().addLong(1_200).build();
    List<String> window = model.subList(50, 200);
    assertThat(scan(space, lo, RangeEnd.at(hi), ScanOptions.defaults().withPageSize(7))).isEqualTo(window);
    List<String> reversed = new ArrayList<>(window);
    Collections.reverse(reversed);
    assertThat(scan(space, lo, RangeEnd.at(hi), ScanOptions.defaults().withReverse(true).withPageSize(5)))
        .isEqualTo(reversed);
    assertThat(scan(space, Key.EMPTY, RangeEnd.INFINITY, ScanOptions.defaults().withLimit(10))).isEqualTo(model.subList(0, 10));
  }

  private static List<String> scan(BucketedKeyspace space, Key lo, RangeEnd hi, ScanOptions o) {
    List<String> out = new ArrayList<>();
    space.scan(client, lo, hi, o).forEachRemaining((KeyValue kv) -> out.add(kv.key().toHex() + "=" + kv.valueUtf8()));
    return out;
  }

  @Test
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void hotCounterTotals_stayExact_whileTheKeyIsHeatedSplitAndCooled() throws Exception {
    HotKeyLists lists = new HotKeyLists();
    HotCounter split = new HotCounter(client, Key.utf8("hot/split"), 8, lists);
    HotCounter folded = new HotCounter(client, Key.utf8("hot/fold"), 8, lists);
    AtomicLong applied = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> writers = new ArrayList<>();
    for (int w = 0; w < 3; w++) {
      Thread t = new Thread(() -> {
        try {
          while (!stop.get()) {
            split.add(1);
            folded.add(1);
            applied.incrementAndGet();
          }
        } catch (Throwable e) {
          failure.set(e);
        }
      }, "incrementer-" + w);
      writers.add(t);
      t.start();
    }
    awaitIncrements(applied, 20);
    split.heat();
    folded.heat();
    awaitIncrements(applied, 60);
    tc.split(HotCounter.partKey(Key.utf8("hot/split"), 4)); // the parts now span two ranges
    awaitIncrements(applied, 90);
    assertThat(split.cool()).isEqualTo(HotCounter.FoldOutcome.KEPT_PARTS);
    assertThat(folded.cool()).isEqualTo(HotCounter.FoldOutcome.FOLDED);
    assertThat(lists.readsParts(Key.utf8("hot/split"))).isTrue();
    assertThat(lists.readsParts(Key.utf8("hot/fold"))).isFalse();
    awaitIncrements(applied, 110);
    stop.set(true);
    for (Thread t : writers) {
      t.join();
    }
    assertThat(failure.get()).isNull();
    assertThat(split.total()).isEqualTo(applied.get());
    assertThat(folded.total()).isEqualTo(applied.get());
    assertThat(client.batchGet(folded.partKeys())).allSatisfy(v -> assertThat(v).isEmpty());
  }

  private static void awaitIncrements(AtomicLong applied, long atLeast) {
    Await.until(Duration.ofSeconds(60), "increments progress to " + atLeast, () -> applied.get() >= atLeast);
  }
}
