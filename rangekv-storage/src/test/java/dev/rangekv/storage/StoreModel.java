package dev.rangekv.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.testkit.Gen;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The brute-force model of a store's user data, a {@code TreeMap}, plus generators of keys and spans under
 * one per-case prefix (so cases can share a store without seeing each other's data).
 */
final class StoreModel {
  final Key prefix;
  final TreeMap<Key, byte[]> map = new TreeMap<>();

  StoreModel(int caseNumber) {
    this.prefix = Key.of(ByteBuffer.allocate(4).putInt(caseNumber).array());
  }

  Key key(Gen g) {
    return prefix.concat(Key.of(g.smallAlphabetBytes(0, 3, 4)));
  }

  byte[] value(Gen g) {
    return g.bytes(0, 24);
  }

  /** A span inside the prefix; sometimes open to +infinity or empty. */
  Key lo(Gen g) {
    return g.chance(0.2) ? prefix : key(g);
  }

  RangeEnd hi(Gen g, Key lo) {
    if (g.chance(0.15)) {
      return RangeEnd.INFINITY;
    }
    if (g.chance(0.15)) {
      return prefix.prefixEnd();
    }
    Key k = key(g);
    return RangeEnd.at(k.compareTo(lo) >= 0 || g.chance(0.1) ? k : lo);
  }

  NavigableMap<Key, byte[]> span(Key lo, RangeEnd hi) {
    if (!hi.isAbove(lo)) {
      return new TreeMap<>();
    }
    return hi.isInfinite() ? map.tailMap(lo, true) : map.subMap(lo, true, hi.key(), false);
  }

  List<KeyValue> scan(Key lo, RangeEnd hi, int limit, boolean reverse) {
    NavigableMap<Key, byte[]> span = span(lo, hi);
    List<KeyValue> out = new ArrayList<>();
    for (Map.Entry<Key, byte[]> e : (reverse ? span.descendingMap() : span).entrySet()) {
      if (out.size() >= limit) {
        break;
      }
      out.add(new KeyValue(e.getKey(), e.getValue()));
    }
    return out;
  }

  static void assertSameEntries(List<KeyValue> actual, List<KeyValue> expected) {
    assertThat(actual).extracting(KeyValue::key).containsExactlyElementsOf(expected.stream().map(KeyValue::key).toList());
    for (int i = 0; i < actual.size(); i++) {
      assertThat(actual.get(i).value()).as("value of %s", actual.get(i).key()).isEqualTo(expected.get(i).value());
    }
  }
}
