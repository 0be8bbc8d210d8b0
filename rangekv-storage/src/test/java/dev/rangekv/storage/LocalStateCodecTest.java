package dev.rangekv.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.testkit.Property;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class LocalStateCodecTest {
  @Test
  void descriptors_roundTrip() {
    Property.named("descriptor codec round trip").cases(1000).sizes(0, 20).check(g -> {
      Key start = Key.of(g.bytes(0, g.size()));
      RangeEnd end = g.nextBoolean() ? RangeEnd.INFINITY : RangeEnd.at(start.concat(Key.of(g.bytes(1, 5))));
      RangeDescriptor d = new RangeDescriptor(g.nextLong(), start, end,
          g.listOf(g.between(0, 5), () -> "node-" + g.nextInt(1000) + "\u00e9"), g.between(0, Integer.MAX_VALUE - 1));
      assertThat(LocalStateCodec.decodeDescriptor(LocalStateCodec.encodeDescriptor(d))).isEqualTo(d);
    });
  }

  @Test
  void truncatedRecords_areRejected() {
    RangeDescriptor d = new RangeDescriptor(1, Key.utf8("a"), RangeEnd.at(Key.utf8("b")), java.util.List.of("n1"), 2);
    byte[] rec = LocalStateCodec.encodeDescriptor(d);
    for (int len = 0; len < rec.length; len++) {
      byte[] cut = Arrays.copyOf(rec, len);
      assertThatThrownBy(() -> LocalStateCodec.decodeDescriptor(cut)).isInstanceOf(StoreException.class);
    }
  }

  @Test
  void fieldKeys_ofOneRange_sortTogether() {
    assertThat(LocalStateCodec.rangeIdOf(LocalStateCodec.fieldKey(-1L, "x"))).isEqualTo(-1L);
    assertThat(LocalStateCodec.fieldOf(LocalStateCodec.fieldKey(42L, "déj"))).isEqualTo("déj");
  }
}
