package dev.rangekv.cli.demo;

import dev.rangekv.cli.RangeKvCommand;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class OfflineDemoTest {

  @Test
  void demo_printsOneRowPerRange_andTheSpreadSummary() {
    StringWriter out = new StringWriter();
    CommandLine cl = RangeKvCommand.commandLine();
    cl.setOut(new PrintWriter(out));
    int exit = cl.execute("demo", "--offline");
    assertThat(exit).isZero();
    String text = out.toString();
    assertThat(text).contains("big-endian ids: 1 of 16 ranges took writes; the busiest took 100.0% of them.");
    assertThat(text).contains("bucketed ids:   16 of 16 ranges took writes");
    assertThat(text.lines().filter(l -> l.matches("r\\d+ .*"))).hasSize(16);
  }

  @Test
  void demo_withOutOfBoundsRanges_isAUsageError() {
    StringWriter err = new StringWriter();
    CommandLine cl = RangeKvCommand.commandLine();
    cl.setErr(new PrintWriter(err));
    assertThat(cl.execute("demo", "--offline", "--ranges", "0")).isEqualTo(2);
    assertThat(err.toString()).contains("ranges must be in [1, 256]");
  }
}
