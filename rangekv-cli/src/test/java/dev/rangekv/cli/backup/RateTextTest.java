package dev.rangekv.cli.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RateTextTest {
  @Test
  void decimalAndBinaryUnits_areBytesPerSecond() {
    assertThat(RateText.bytesPerSecond("20MB")).isEqualTo(20_000_000L);
    assertThat(RateText.bytesPerSecond("512KiB")).isEqualTo(512L << 10);
    assertThat(RateText.bytesPerSecond("1.5 GB/s")).isEqualTo(1_500_000_000L);
    assertThat(RateText.bytesPerSecond("1000")).isEqualTo(1000L);
  }

  @Test
  void zeroOrText_isRefusedNamingTheOption() {
    assertThatThrownBy(() -> RateText.bytesPerSecond("fast")).hasMessageContaining("--rate");
    assertThatThrownBy(() -> RateText.bytesPerSecond("0MB")).hasMessageContaining("--rate must be positive");
  }
}
