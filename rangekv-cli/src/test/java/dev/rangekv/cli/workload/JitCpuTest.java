package dev.rangekv.cli.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class JitCpuTest {
  private static String stat(String comm, long utime, long stime) {
    return "4242 (" + comm + ") S 1 4200 4200 0 -1 1077936192 6290 0 0 0 " + utime + " " + stime
        + " 0 0 20 0 60 0 2151 9371557888 89216 18446744073709551615 1 1 0 0 0 0 0 0 16900 0 0 0 -1 1 0 0 0 0 0";
  }

  @Test
  void compilerThreads_countUserPlusSystemTicks() {
    assertThat(JitCpu.compilerTicks(stat("C2 CompilerThre", 700, 45))).hasValue(745);
    assertThat(JitCpu.compilerTicks(stat("C1 CompilerThre", 3, 1))).hasValue(4);
  }

  @Test
  void otherThreads_areNotCompilers_evenWithParenthesesInTheirName() {
    assertThat(JitCpu.compilerTicks(stat("grpc-default-ex", 900, 100))).isEmpty();
    assertThat(JitCpu.compilerTicks(stat("x) C2 CompilerThre", 900, 100))).isEmpty();
    assertThat(JitCpu.compilerTicks(stat("GC Thread#0", 900, 100))).isEmpty();
    assertThatThrownBy(() -> JitCpu.compilerTicks("1 (C2 CompilerThre) S 1 2"))
        .hasMessageContaining("fields after the name");
  }

  @Test
  void secondsSince_countsNewThreadsWholeAndNeverGoesNegative() {
    JitCpu before = new JitCpu(Map.of("10/11", 100L, "10/12", 50L, "20/21", 30L));
    JitCpu after = new JitCpu(Map.of("10/11", 350L, "10/12", 50L, "30/31", 20L)); // 20/21 exited, 30/31 started
    assertThat(after.secondsSince(before)).isEqualTo(2.7);
    assertThat(before.secondsSince(after)).isEqualTo(0.3); // 20/21 whole, the rest clamped at 0
  }
}
