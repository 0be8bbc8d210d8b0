package dev.rangekv.sim.partition;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.sim.partition.PlacementSimulation.Churn;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The figures seeds 003 and 004 publish, reproduced exactly with the seeds' own hashes, key
 * encodings and node names. Exact counts come from running the seeds' Python programs.
 */
class SeedFiguresTest {
  private static List<Key> seed004Keys;
  private static List<Node> tenNodes;
  private static List<Node> elevenNodes;

  @BeforeAll
  static void setUp() {
    seed004Keys = PlacementSimulation.keys("user:{i}", 0, 100_000);
    tenNodes = PlacementSimulation.numberedNodes(10);
    elevenNodes = PlacementSimulation.numberedNodes(11);
  }

  @Test
  void seed003_modN_8to10_moves80point2Percent_and_8to16_moves49point9Percent() {
    // ids = [str(n) for n in range(1, 100_001)]; h = first 8 bytes of md5, big-endian.
    List<Key> ids = PlacementSimulation.keys("{i}", 1, 100_000);
    Churn to10 = PlacementSimulation.churn(Scheme.modN(Hash64.MD5_64), ids, PlacementSimulation.numberedNodes(8),
        PlacementSimulation.numberedNodes(10));
    Churn to16 = PlacementSimulation.churn(Scheme.modN(Hash64.MD5_64), ids, PlacementSimulation.numberedNodes(8),
        PlacementSimulation.numberedNodes(16));
    assertThat(to10.moved()).isEqualTo(80_175);
    assertThat(to16.moved()).isEqualTo(49_919);
    assertThat(String.format("%.1f%%", 100 * to10.movedShare())).isEqualTo("80.2%");
    assertThat(String.format("%.1f%%", 100 * to16.movedShare())).isEqualTo("49.9%");
    // Doubling moves only keys to the new nodes (the seed's "grow by doubling"); 8 -> 10 does not.
    assertThat(to16.minimal()).isTrue();
    assertThat(to10.minimal()).isFalse();
  }

  @Test
  void seed003_sixteenCounterParts_landOnSixOfEightShards_withUpToFourOnOne() {
    Map<Integer, Integer> perShard = new HashMap<>();
    for (int n = 0; n < 16; n++) {
      perShard.merge(ModN.bucket(Hash64.MD5_64.hash("plays:song_7781#" + n), 8), 1, Integer::sum);
    }
    assertThat(perShard).hasSize(6);
    assertThat(perShard.values().stream().mapToInt(Integer::intValue).max().orElseThrow()).isEqualTo(4);
  }

  /** Seed 004's table: scheme, moved, all to new?, max count at 10 nodes, max count at 11 nodes. */
  @Test
  void seed004_table_isReproducedExactly() {
    Hash64 h = Hash64.BLAKE2B_64;
    List<Object[]> expected = List.of(
        new Object[] {Scheme.modN(h), 90_890, false, 10_092, 9_202, "90.9%", "1.01", "1.01"},
        new Object[] {Scheme.ring(1, h), 12_988, true, 24_865, 24_865, "13.0%", "2.49", "2.74"},
        new Object[] {Scheme.ring(10, h), 8_585, true, 17_574, 17_574, "8.6%", "1.76", "1.93"},
        new Object[] {Scheme.ring(100, h), 7_581, true, 11_967, 11_143, "7.6%", "1.20", "1.23"},
        new Object[] {Scheme.ring(1000, h), 9_296, true, 10_317, 9_369, "9.3%", "1.03", "1.03"},
        new Object[] {Scheme.rendezvous(h), 9_125, true, 10_227, 9_307, "9.1%", "1.02", "1.02"},
        new Object[] {Scheme.jump(h), 9_079, true, 10_144, 9_188, "9.1%", "1.01", "1.01"},
        new Object[] {Scheme.boundedLoad(100, 1.10, h), 8_470, false, 11_001, 10_001, "8.5%", "1.10", "1.10"});
    List<String> mismatches = new ArrayList<>();
    for (Object[] row : expected) {
      Scheme s = (Scheme) row[0];
      Churn c = PlacementSimulation.churn(s, seed004Keys, tenNodes, elevenNodes);
      String got = String.format("%s %d %b %d %d %.1f%% %.2f %.2f", s.name(), c.moved(), c.minimal(), c.maxBefore(),
          c.maxAfter(), 100 * c.movedShare(), c.peakBefore(), c.peakAfter());
      String want = String.format("%s %d %b %d %d %s %s %s", s.name(), row[1], row[2], row[3], row[4], row[5], row[6],
          row[7]);
      if (!got.equals(want)) {
        mismatches.add("got " + got + " want " + want);
      }
    }
    assertThat(mismatches).isEmpty();
  }

  @Test
  void seed004_schemeNames_matchTheSeedTable() {
    assertThat(Scheme.seed004(Hash64.BLAKE2B_64).stream().map(Scheme::name).toList()).startsWith(
        "hash mod N", "ring, 1 point per node", "ring, 10 points per node", "ring, 100 points per node",
        "ring, 1,000 points per node", "rendezvous (HRW)", "jump consistent hash", "ring 100 + bounded load 1.10");
  }
}
