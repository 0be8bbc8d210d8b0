package dev.rangekv.server.console;

import dev.rangekv.server.observe.KeyHeatRing;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The heat map as JSON: {@code {"columns":[{"at":millis,"bands":[{"range":"id","start":base64,"read":qps,
 * "write":qps,"bytes":written per second}...]}...],"keyText":{base64:text...}}, columns oldest first, bands
 * in key order; range ids are strings, as protobuf's
 * JSON prints uint64 (they do not fit a JavaScript number).
 */
final class HeatJson {
  private HeatJson() {}

  static String of(List<KeyHeatRing.Column> columns) {
    StringBuilder b = new StringBuilder(64 + columns.size() * 256).append("{\"columns\":[");
    Map<String, String> texts = new TreeMap<>();
    for (int i = 0; i < columns.size(); i++) {
      KeyHeatRing.Column c = columns.get(i);
      b.append(i == 0 ? "" : ",").append("{\"at\":").append(c.atMillis()).append(",\"bands\":[");
      for (int j = 0; j < c.bands().size(); j++) {
        KeyHeatRing.Band band = c.bands().get(j);
        KeyTextJson.put(texts, band.start().toByteArray());
        b.append(j == 0 ? "" : ",").append("{\"range\":\"").append(Long.toUnsignedString(band.rangeId())).append('"')
            .append(",\"start\":\"").append(Base64.getEncoder().encodeToString(band.start().toByteArray()))
            .append("\",\"read\":").append(number(band.readQps()))
            .append(",\"write\":").append(number(band.writeQps()))
            .append(",\"bytes\":").append(number(band.writeBytesPerSecond())).append('}');
      }
      b.append("]}");
    }
    return KeyTextJson.withKeyText(b.append("]}").toString(), texts);
  }

  private static String number(double d) {
    return Double.isFinite(d) ? Double.toString(d) : "0";
  }

  /** A JSON string literal. */
  static String string(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (char ch : s.toCharArray()) {
      switch (ch) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        default -> {
          if (ch < 0x20) {
            b.append(String.format("\\u%04x", (int) ch));
          } else {
            b.append(ch);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
