package dev.rangekv.client.scan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.core.key.Key;
import dev.rangekv.testkit.Property;
import org.junit.jupiter.api.Test;

class ScanCursorTest {
  @Test
  void cursors_roundTripThroughBytesAndText() {
    Property.named("cursor round trip").cases(1000).sizes(0, 30).check(g -> {
      ScanCursor c = new ScanCursor(Key.of(g.bytes(0, g.size())), g.nextBoolean());
      assertThat(ScanCursor.fromBytes(c.toBytes())).isEqualTo(c);
      assertThat(ScanCursor.decode(c.encode())).isEqualTo(c);
    });
  }

  @Test
  void garbage_isRejectedWithAClearError() {
    assertThatThrownBy(() -> ScanCursor.decode("!!")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a scan cursor");
    assertThatThrownBy(() -> ScanCursor.fromBytes(new byte[] {9, 'f'})).isInstanceOf(IllegalArgumentException.class);
  }
}
