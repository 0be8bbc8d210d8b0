package dev.rangekv.cli.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {
  @Test
  void writesNestedMapsAndLists_inInsertionOrder_withEscapes() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("b", 1);
    m.put("a", List.of("x\"y", "tab\t"));
    m.put("n", null);
    m.put("ok", true);
    m.put("q", 2.5);
    m.put("whole", 3.0);
    m.put("nan", Double.NaN);
    m.put("ctl", "\u0001");
    assertThat(Json.write(m)).isEqualTo(
        "{\"b\":1,\"a\":[\"x\\\"y\",\"tab\\t\"],\"n\":null,\"ok\":true,\"q\":2.5000,\"whole\":3,\"nan\":null,"
            + "\"ctl\":\"\\u0001\"}");
    assertThat(Json.write(Arrays.asList(1L, "z"))).isEqualTo("[1,\"z\"]");
  }
}
