package dev.rangekv.core.rangemap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyCodec;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** RangeMap against {@link RangeMapModel} over random sequences of splits, merges and applies. */
class RangeMapPropertyTest {
  private static final List<String> NODES = List.of("n1", "n2", "n3");
  private static final List<String> OTHER_NODES = List.of("n2", "n4");
  /** Bytes around the signed/unsigned edges, so the prefix column's sign flip is exercised. */
  private static final byte[] ALPHABET = {0x00, 0x01, 0x7F, (byte) 0x80, (byte) 0xFF};
  /** A shared 8-byte prefix, so that many keys tie on {@link Key#prefix8()}. */
  private static final Key COMMON = Key.fromHex("80ff0001807f0000");

  @Test
  void operations_andQueries_agreeWithTheModel() {
    Property.named("range map vs model").cases(1000).sizes(1, 60).check(g -> {
      RangeMap map = RangeMap.initial(1, NODES);
      RangeMapModel model = new RangeMapModel(map.ranges());
      long nextId = 2;
      for (int step = 0; step < g.size(); step++) {
        RangeMap before = map;
        int op = g.nextInt(10);
        if (op < 5) {
          Key at = key(g);
          long id = g.chance(0.1) ? g.between(1, (int) nextId) : nextId++;
          if (model.split(at, id)) {
            map = map.split(at, id);
          } else {
            RangeMap m = map;
            assertThatThrownBy(() -> m.split(at, id)).isInstanceOf(IllegalArgumentException.class);
          }
        } else if (op < 7) {
          long id = g.chance(0.8) ? g.pick(model.ranges).rangeId() : g.between(1, (int) nextId + 1);
          if (model.merge(id)) {
            map = map.merge(id);
          } else {
            RangeMap m = map;
            assertThatThrownBy(() -> m.merge(id)).isInstanceOf(IllegalArgumentException.class);
          }
        } else {
          List<RangeDescriptor> news = g.listOf(g.between(1, 3), () -> descriptor(g, model));
          boolean changed = news.size() == 1 ? model.apply(news.get(0)) : model.applyAll(news);
          RangeMap next = news.size() == 1 ? map.apply(news.get(0)) : map.applyAll(news);
          assertThat(next != map).as("changed").isEqualTo(changed);
          map = next;
        }
        assertThat(map.ranges()).isEqualTo(model.ranges);
        assertTiles(map);
        assertGenerationsNeverDrop(before, map, g);
      }
      assertQueriesAgree(map, model, g);
    });
  }

  @Test
  void splitThenMerge_ofTheSameBoundary_isTheIdentityUpToGeneration() {
    Property.named("split then merge").cases(1000).sizes(1, 60).check(g -> {
      List<Key> points = new ArrayList<>(new TreeSet<>(g.listOf(g.size(), () -> key(g))));
      points.remove(Key.EMPTY);
      RangeMap map = RangeMap.presplit(points, 1, NODES);
      Key at = key(g);
      RangeDescriptor holder = map.lookup(at);
      if (holder.start().equals(at)) {
        return; // a boundary already: nothing to split (checked by the model test)
      }
      RangeMap back = map.split(at, 100_000).merge(holder.rangeId());
      List<RangeDescriptor> expected = new ArrayList<>(map.ranges());
      int i = map.indexOf(at);
      expected.set(i, holder.withSpan(holder.start(), holder.end(), holder.generation() + 2));
      assertThat(back.ranges()).isEqualTo(expected);
    });
  }

  @Test
  void aCacheFedAuthoritativeDescriptors_neverRunsAhead_andConverges() {
    Property.named("cache converges").cases(1000).sizes(1, 40).check(g -> {
      RangeMap truth = RangeMap.initial(1, NODES);
      Set<RangeDescriptor> history = new LinkedHashSet<>(truth.ranges());
      long nextId = 2;
      for (int step = 0; step < g.size(); step++) {
        Key at = key(g);
        if (g.chance(0.7) && !truth.lookup(at).start().equals(at)) {
          truth = truth.split(at, nextId++);
        } else if (truth.size() > 1) {
          truth = truth.merge(truth.get(g.nextInt(truth.size() - 1)).rangeId());
        }
        history.addAll(truth.ranges());
      }
      List<RangeDescriptor> past = new ArrayList<>(history);
      RangeMap cache = RangeMap.initial(1, NODES);
      for (int step = 0; step < g.size(); step++) {
        RangeMap before = cache;
        List<RangeDescriptor> news = g.listOf(g.between(1, 4), () -> g.pick(past));
        cache = g.nextBoolean() ? cache.applyAll(news) : cache.apply(news.get(0));
        assertGenerationsNeverDrop(before, cache, g);
        for (int q = 0; q < 10; q++) {
          Key k = key(g);
          RangeDescriptor cached = cache.lookup(k);
          assertThat(cached.generation()).isLessThanOrEqualTo(truth.lookup(k).generation());
          assertThat(past).anyMatch(h -> h.rangeId() == cached.rangeId() && h.generation() == cached.generation()
              && h.containsSpan(cached.start(), cached.end()));
        }
      }
      List<RangeDescriptor> current = new ArrayList<>(truth.ranges());
      Collections.shuffle(current, new Random(g.nextLong()));
      assertThat(cache.applyAll(current).ranges()).isEqualTo(truth.ranges());
    });
  }

  @Test
  void bothIndexLayouts_agreeWithALinearScan_onTieHeavyKeys() {
    Property.named("index layouts").cases(1000).sizes(1, 300).check(g -> {
      // Half the cases: every start shares a prefix, so the column skips it.
      Key shared = g.nextBoolean() ? Key.EMPTY : COMMON.prefix(g.between(1, 8)).concat(key(g));
      Supplier<Key> startGen = () -> shared.concat(key(g));
      TreeSet<Key> set = new TreeSet<>(g.listOf(g.size(), startGen));
      set.add(Key.EMPTY);
      List<Key> starts = new ArrayList<>(set);
      RangeIndex array = RangeIndex.sortedArray(starts);
      RangeIndex tree = RangeIndex.treeMap(starts);
      Key[] batch = g.listOf(g.between(0, 60), () -> g.nextBoolean() ? startGen.get() : key(g)).toArray(new Key[0]);
      if (g.chance(0.8)) {
        Arrays.sort(batch);
      }
      int[] fromArray = new int[batch.length];
      int[] fromTree = new int[batch.length];
      array.floorIndices(batch, fromArray);
      tree.floorIndices(batch, fromTree);
      for (int j = 0; j < batch.length; j++) {
        int expected = linearFloor(starts, batch[j]);
        assertThat(array.floorIndex(batch[j])).isEqualTo(expected);
        assertThat(tree.floorIndex(batch[j])).isEqualTo(expected);
        assertThat(fromArray[j]).isEqualTo(expected);
        assertThat(fromTree[j]).isEqualTo(expected);
      }
    });
  }

  @Test
  void arrayIndex_agreesWithTreeMap_onLargeMaps_whereTheRadixTableMatters() {
    Property.named("large index").cases(100).sizes(1, 10_000).check(g -> {
      int shape = g.nextInt(4);
      Supplier<Key> gen = () -> switch (shape) {
        case 0 -> KeyCodec.bigEndian(g.nextLong() >>> g.nextInt(64));
        case 1 -> Key.utf8("user" + Long.toString(g.nextLong() >>> 20, 36));
        case 2 -> Key.utf8("tenant1/" + Long.toString(g.nextLong() >>> g.nextInt(64), 36));
        default -> Key.of(g.bytes(0, 10));
      };
      TreeSet<Key> set = new TreeSet<>(g.listOf(g.size(), gen));
      set.add(Key.EMPTY);
      List<Key> starts = new ArrayList<>(set);
      RangeIndex array = RangeIndex.sortedArray(starts);
      RangeIndex tree = RangeIndex.treeMap(starts);
      for (int q = 0; q < 200; q++) {
        Key k = g.chance(0.1) ? g.pick(starts) : gen.get();
        assertThat(array.floorIndex(k)).as("key %s", k).isEqualTo(tree.floorIndex(k));
      }
    });
  }

  private static int linearFloor(List<Key> starts, Key key) {
    int best = 0;
    for (int i = 0; i < starts.size(); i++) {
      if (starts.get(i).compareTo(key) <= 0) {
        best = i;
      }
    }
    return best;
  }

  private static void assertQueriesAgree(RangeMap map, RangeMapModel model, Gen g) {
    for (int q = 0; q < 20; q++) {
      Key k = key(g);
      assertThat(map.indexOf(k)).isEqualTo(model.indexOf(k));
      assertThat(map.lookup(k)).isEqualTo(model.ranges.get(model.indexOf(k)));
    }
    List<Key> batch = new ArrayList<>(g.listOf(g.between(0, 3 * g.size()), () -> key(g)));
    boolean sorted = g.chance(0.8);
    if (sorted) {
      Collections.sort(batch);
    }
    int[] routed = map.lookupSorted(batch);
    for (int j = 0; j < batch.size(); j++) {
      assertThat(routed[j]).as("batch key %s", batch.get(j)).isEqualTo(model.indexOf(batch.get(j)));
    }
    for (int q = 0; q < 10; q++) {
      Key lo = key(g);
      RangeEnd hi = g.chance(0.2) ? RangeEnd.INFINITY : RangeEnd.at(key(g));
      List<ScanPiece> expected = model.scanPlan(lo, hi);
      assertThat(map.scanPlan(lo, hi)).isEqualTo(expected);
      List<ScanPiece> reversed = new ArrayList<>(expected);
      Collections.reverse(reversed);
      assertThat(map.scanPlanReverse(lo, hi)).isEqualTo(reversed);
      assertPiecesCover(expected, lo, hi);
    }
  }

  /** The pieces chain from lo to hi with no gap or overlap (when the span is non-empty). */
  private static void assertPiecesCover(List<ScanPiece> pieces, Key lo, RangeEnd hi) {
    if (!hi.isAbove(lo)) {
      assertThat(pieces).isEmpty();
      return;
    }
    assertThat(pieces.get(0).lo()).isEqualTo(lo);
    assertThat(pieces.get(pieces.size() - 1).hi()).isEqualTo(hi);
    for (int i = 0; i + 1 < pieces.size(); i++) {
      assertThat(pieces.get(i).hi()).isEqualTo(RangeEnd.at(pieces.get(i + 1).lo()));
    }
  }

  private static void assertTiles(RangeMap map) {
    List<RangeDescriptor> rs = map.ranges();
    assertThat(rs.get(0).start()).isEqualTo(Key.EMPTY);
    assertThat(rs.get(rs.size() - 1).end()).isEqualTo(RangeEnd.INFINITY);
    for (int i = 0; i + 1 < rs.size(); i++) {
      assertThat(rs.get(i).end()).isEqualTo(RangeEnd.at(rs.get(i + 1).start()));
    }
  }

  private static void assertGenerationsNeverDrop(RangeMap before, RangeMap after, Gen g) {
    List<Key> probes = new ArrayList<>();
    before.ranges().forEach(r -> probes.add(r.start()));
    after.ranges().forEach(r -> probes.add(r.start()));
    probes.addAll(g.listOf(10, () -> key(g)));
    for (Key k : probes) {
      assertThat(after.lookup(k).generation()).as("generation at %s", k)
          .isGreaterThanOrEqualTo(before.lookup(k).generation());
    }
  }

  private static RangeDescriptor descriptor(Gen g, RangeMapModel model) {
    Key a = g.chance(0.1) ? Key.EMPTY : key(g);
    Key b = key(g);
    Key lo = a.compareTo(b) <= 0 ? a : b;
    Key hi = a.compareTo(b) <= 0 ? b : a;
    RangeEnd end = g.chance(0.15) || lo.equals(hi) ? RangeEnd.INFINITY : RangeEnd.at(hi);
    long maxGen = model.ranges.stream().mapToLong(RangeDescriptor::generation).max().orElse(0);
    return new RangeDescriptor(g.between(1, 20), lo, end, g.chance(0.8) ? NODES : OTHER_NODES,
        g.between(0, (int) maxGen + 3));
  }

  /** Short keys over an edge-heavy alphabet; half of them behind a shared 8-byte prefix. */
  static Key key(Gen g) {
    int len = g.between(0, 1 + g.size() / 10);
    byte[] b = new byte[len];
    for (int i = 0; i < len; i++) {
      b[i] = ALPHABET[g.nextInt(ALPHABET.length)];
    }
    Key k = Key.of(b);
    return g.nextBoolean() ? k : COMMON.prefix(g.between(0, 8)).concat(k);
  }
}
