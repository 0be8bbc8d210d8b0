package dev.rangekv.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.KeyText;
import org.junit.jupiter.api.Test;

class WritersTest {

  @Test
  void aFailedWritesKey_printsReadably_andItsReasonWithoutTheClientsDescription() {
    for (Phase p : Phase.values()) {
      String key = KeyText.render(p.key(1_765_000_000_000L, "o0000042", 7));
      assertThat(key).as(p.name()).doesNotContain("\\x").contains("o0000042");
    }
    assertThat(Writers.reason("write outcome unknown, applied at most once: put key=\"\\x00\\x02ev\" attempts=3"))
        .isEqualTo("write outcome unknown, applied at most once (attempts=3)");
    assertThat(Writers.reason("write outcome unknown, applied at most once: put key=\"k\" attempts=12 range=r7@3"
        + " last=DuplicateTooOld: id below the floor trail=[n1 NotLeader]"))
        .isEqualTo("write outcome unknown, applied at most once (attempts=12, last DuplicateTooOld)");
    assertThat(Writers.reason("deadline passed")).isEqualTo("deadline passed");
  }
}
