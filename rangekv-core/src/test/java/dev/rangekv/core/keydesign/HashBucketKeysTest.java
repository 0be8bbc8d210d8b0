package dev.rangekv.core.keydesign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyCodec;
import dev.rangekv.core.rangemap.RangeMap;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HashBucketKeysTest {

  /** Seed 001's check: 64 pre-split ranges, ids 1,000,000 to 1,099,999. */
  @Test
  void bigEndianIds_landInOneRange_bucketedIds_inAll64() {
    RangeMap map = RangeMap.presplit(KeyCodec.uniformSplitPoints(64), 1, List.of("n1"));
    HashBucketKeys buckets = new HashBucketKeys(256);
    Set<Long> plain = new HashSet<>();
    Set<Long> salted = new HashSet<>();
    for (long id = 1_000_000; id < 1_100_000; id++) {
      plain.add(map.lookup(KeyCodec.bigEndian(id)).rangeId());
      salted.add(map.lookup(buckets.key(id)).rangeId());
    }
    assertThat(plain).hasSize(1);
    assertThat(salted).hasSize(64);
  }

  @Test
  void bucketPrefixes_spreadEvenlyOverTheFirstByte() {
    HashBucketKeys b = new HashBucketKeys(64);
    assertThat(b.prefixByte(0)).isZero();
    assertThat(b.prefixByte(1)).isEqualTo(4);
    assertThat(b.prefixByte(63)).isEqualTo(252);
    Key k = b.key(7);
    assertThat(k.size()).isEqualTo(9);
    assertThat(k.byteAt(0)).isEqualTo(b.prefixByte(b.bucket(7)));
    assertThatThrownBy(() -> new HashBucketKeys(257)).isInstanceOf(IllegalArgumentException.class);
  }
}
