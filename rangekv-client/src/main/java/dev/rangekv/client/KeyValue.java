package dev.rangekv.client;

import dev.rangekv.core.key.Key;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/** One entry of a scan or batch read: a key and its value. Immutable (the value is copied out). */
public final class KeyValue {
  private final Key key;
  private final byte[] value;

  private KeyValue(Key key, byte[] value) {
    this.key = Objects.requireNonNull(key, "key");
    this.value = value;
  }

  public static KeyValue of(Key key, byte[] value) {
    return new KeyValue(key, value.clone());
  }

  /** Takes ownership of {@code value}: for decoders that just built the array. */
  public static KeyValue adopt(Key key, byte[] value) {
    return new KeyValue(key, value);
  }

  public Key key() {
    return key;
  }

  public byte[] value() {
    return value.clone();
  }

  public String valueUtf8() {
    return new String(value, StandardCharsets.UTF_8);
  }

  /** The same value under another key (e.g. with a bucket prefix stripped). */
  public KeyValue withKey(Key newKey) {
    return new KeyValue(newKey, value);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KeyValue kv && key.equals(kv.key) && Arrays.equals(value, kv.value);
  }

  @Override
  public int hashCode() {
    return key.hashCode() * 31 + Arrays.hashCode(value);
  }

  @Override
  public String toString() {
    return key + "=" + Key.of(value);
  }
}
