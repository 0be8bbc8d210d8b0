package dev.rangekv.server.console;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.MessageOrBuilder;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyText;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code "keyText"} member the console's JSON answers carry: every key (bytes field) in the answer,
 * base64 as protobuf's JSON prints it, mapped to its {@link KeyText} rendering, so the pages show keys
 * exactly as the CLI does without a second renderer in JavaScript. Stateless.
 */
final class KeyTextJson {
  private KeyTextJson() {}

  /** {@code json} (an object) with {@code "keyText":{base64: text...}} added for the keys in {@code message}. */
  static String withKeyText(String json, MessageOrBuilder message) {
    Map<String, String> texts = new TreeMap<>();
    collect(message, texts);
    return withKeyText(json, texts);
  }

  static String withKeyText(String json, Map<String, String> texts) {
    if (!json.endsWith("}")) {
      throw new IllegalStateException("console JSON answers are objects, got " + json.charAt(json.length() - 1));
    }
    StringBuilder b = new StringBuilder(json.length() + texts.size() * 64).append(json, 0, json.length() - 1);
    b.append(json.length() > 2 ? "," : "").append("\"keyText\":{");
    boolean first = true;
    for (Map.Entry<String, String> e : texts.entrySet()) {
      b.append(first ? "" : ",").append(HeatJson.string(e.getKey())).append(':').append(HeatJson.string(e.getValue()));
      first = false;
    }
    return b.append("}}").toString();
  }

  static void put(Map<String, String> texts, byte[] key) {
    if (key.length > 0) {
      texts.putIfAbsent(Base64.getEncoder().encodeToString(key), KeyText.render(Key.of(key)));
    }
  }

  private static void collect(MessageOrBuilder m, Map<String, String> texts) {
    for (Map.Entry<FieldDescriptor, Object> f : m.getAllFields().entrySet()) {
      FieldDescriptor.JavaType type = f.getKey().getJavaType();
      if (type != FieldDescriptor.JavaType.MESSAGE && type != FieldDescriptor.JavaType.BYTE_STRING) {
        continue;
      }
      Iterable<?> values = f.getKey().isRepeated() ? (Iterable<?>) f.getValue() : List.of(f.getValue());
      for (Object v : values) {
        if (v instanceof ByteString bytes) {
          put(texts, bytes.toByteArray());
        } else if (v instanceof MessageOrBuilder child) {
          collect(child, texts);
        }
      }
    }
  }
}
