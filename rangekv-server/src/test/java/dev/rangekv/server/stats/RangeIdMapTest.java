package dev.rangekv.server.stats;


import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.testkit.Property;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RangeTableTest {
  @Test
  void getOrCreate_get_removeAll_agreeWithAHashMap() {
    Property.named("range table").cases(1000).sizes(1, 200).check(g -> {
      RangeIdMap<String> table = new RangeIdMap<>();
      Map<Long, String> model = new HashMap<>();
      for (int op = 0; op < g.size(); op++) {
        long id = g.chance(0.1) ? g.nextLong() : g.nextInt(64);
        if (g.chance(0.2)) {
          long other = g.nextInt(64);
          table.removeAll(new long[] {id, other});
          model.remove(id);
          model.remove(other);
        } else {
          String created = "v" + op;
          String got = table.getOrCreate(id, x -> created);
          assertThat(got).isEqualTo(model.computeIfAbsent(id, x -> created));
        }
        long probe = g.nextInt(64);
        assertThat(table.get(probe)).isEqualTo(model.get(probe));
      }
      Map<Long, String> seen = new HashMap<>();
      table.forEach(seen::put);
      assertThat(seen).isEqualTo(model);
      assertThat(table.size()).isEqualTo(model.size());
    });
  }
}
