package dev.rangekv.cli.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.testkit.Property;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PhaseSpecTest {
  @Test
  void names_parseToTheirMixes() {
    assertThat(PhaseSpec.parse("insert").mix()).isEqualTo(Map.of(OpKind.INSERT, 1));
    assertThat(PhaseSpec.parse("Update").mix()).isEqualTo(Map.of(OpKind.UPDATE, 1));
    assertThat(PhaseSpec.parse("scan10").scanLength()).isEqualTo(10);
    assertThat(PhaseSpec.parse("ycsb-a").mix()).isEqualTo(Map.of(OpKind.READ, 50, OpKind.UPDATE, 50));
    assertThat(PhaseSpec.parse("b").name()).isEqualTo("ycsb-b");
    assertThat(PhaseSpec.parse("ycsb-d").distribution()).isEqualTo(KeyChooser.Distribution.LATEST);
    assertThat(PhaseSpec.parse("ycsb-e").scanLengthUniform()).isTrue();
    assertThat(PhaseSpec.parse("ycsb-f").mix()).containsKey(OpKind.READ_MODIFY_WRITE);
    assertThat(PhaseSpec.parseList("insert, read,scan5")).extracting(PhaseSpec::name)
        .containsExactly("insert", "read", "scan5");
  }

  @Test
  void unknownNames_areRejectedNamingTheKnownOnes() {
    assertThatThrownBy(() -> PhaseSpec.parse("ycsb-g")).hasMessage(
        "unknown phase 'ycsb-g' (known: " + PhaseSpec.KNOWN + ")");
    assertThatThrownBy(() -> PhaseSpec.parse("scan0")).hasMessageContaining("scan length must be in [1, 10000]");
    assertThatThrownBy(() -> PhaseSpec.parseList(" , ")).hasMessageContaining("no phase named");
  }

  @Test
  void pick_drawsEachKindInProportionToItsWeight() {
    Property.named("phase mix").cases(100).check(gen -> {
      Map<OpKind, Integer> weights = new java.util.EnumMap<>(OpKind.class);
      for (OpKind k : OpKind.values()) {
        if (gen.nextBoolean()) {
          weights.put(k, 1 + gen.nextInt(100));
        }
      }
      if (weights.isEmpty()) {
        weights.put(OpKind.READ, 1);
      }
      PhaseSpec spec = new PhaseSpec("p", weights, KeyChooser.Distribution.UNIFORM, 1, false);
      int total = weights.values().stream().mapToInt(Integer::intValue).sum();
      int samples = 20_000;
      Map<OpKind, Integer> counts = new java.util.EnumMap<>(OpKind.class);
      for (int i = 0; i < samples; i++) {
        counts.merge(spec.pick(gen.random()), 1, Integer::sum);
      }
      assertThat(weights.keySet()).containsAll(counts.keySet());
      weights.forEach((k, w) -> {
        double p = w / (double) total;
        double sd = Math.sqrt(samples * p * (1 - p));
        assertThat((double) counts.getOrDefault(k, 0)).as("%s", k)
            .isBetween(samples * p - 6 * sd - 3, samples * p + 6 * sd + 3);
      });
    });
  }

  @Test
  void ycsbE_scanLengths_areUniformFrom1To100() {
    PhaseSpec e = PhaseSpec.parse("ycsb-e");
    SplittableRandom r = new SplittableRandom(7);
    int[] seen = new int[101];
    for (int i = 0; i < 50_000; i++) {
      seen[e.nextScanLength(r)]++;
    }
    assertThat(seen[0]).isZero();
    for (int len = 1; len <= 100; len++) {
      assertThat(seen[len]).as("length %d", len).isBetween(300, 700);
    }
  }

  @Test
  void workloads_checkThatReadPhasesHaveKeys() {
    List<PhaseSpec> kv = PhaseSpec.parseList(Workloads.defaultPhases("kv"));
    assertThat(Workloads.missingKeys(kv, 0)).isEmpty();
    assertThat(Workloads.missingKeys(PhaseSpec.parseList("read,insert"), 0)).contains(
        "phase 'read' needs existing keys: add --load N or an insert phase before it");
    assertThat(Workloads.missingKeys(PhaseSpec.parseList("read"), 10)).isEmpty();
    assertThat(Workloads.defaultLoad("ycsb", java.util.Optional.empty())).isEqualTo(Workloads.YCSB_DEFAULT_LOAD);
    assertThat(Workloads.defaultLoad("kv", java.util.Optional.of(5L))).isEqualTo(5);
    assertThatThrownBy(() -> Workloads.defaultPhases("tpcc")).hasMessage("unknown workload 'tpcc' (known: kv, ycsb)");
  }

  @Test
  void keyNames_areZeroPaddedToTenDigits() {
    assertThat(KeySpace.name(0)).isEqualTo("user0000000000");
    assertThat(KeySpace.name(42)).isEqualTo(String.format("user%010d", 42));
    KeySpace keys = new KeySpace(3);
    assertThat(keys.claim(5)).isEqualTo(3);
    assertThat(keys.claim(5)).isEqualTo(4);
    assertThat(keys.claim(5)).isEqualTo(-1);
    assertThat(keys.size()).isEqualTo(5);
  }
}
