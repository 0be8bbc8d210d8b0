package dev.rangekv.cli.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class TableTest {
  @Test
  void alignsColumns_numbersRight_textLeft() {
    StringWriter w = new StringWriter();
    new Table("RANGE", "SIZE", "NODE").row("r1", Table.bytes(1536), "n1").row("r12", Table.bytes(10), "n2")
        .print(new PrintWriter(w));
    assertThat(w.toString()).isEqualTo(
        "RANGE     SIZE  NODE\n"
            + "r1     1.5 KiB  n1\n"
            + "r12       10 B  n2\n");
  }

  @Test
  void bytes_usesBinaryUnits() {
    assertThat(Table.bytes(0)).isEqualTo("0 B");
    assertThat(Table.bytes(1 << 20)).isEqualTo("1.0 MiB");
    assertThat(Table.bytes(3L << 30)).isEqualTo("3.0 GiB");
  }

  @Test
  void durations_parseWithUnits_andRejectJunk() {
    assertThat(DurationText.parse("20s")).isEqualTo(Duration.ofSeconds(20));
    assertThat(DurationText.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(DurationText.parse("2m")).isEqualTo(Duration.ofMinutes(2));
    assertThat(DurationText.parse("7")).isEqualTo(Duration.ofSeconds(7));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> DurationText.parse("soon"))
        .isInstanceOf(CommandLine.TypeConversionException.class);
    assertThat(DurationText.format(Duration.ofSeconds(65))).isEqualTo("1m05s");
  }
}
