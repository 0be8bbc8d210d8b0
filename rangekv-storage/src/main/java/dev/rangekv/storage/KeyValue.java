package dev.rangekv.storage;

import dev.rangekv.core.key.Key;
import java.util.Objects;

/**
 * One entry read from the store. The value array is handed over without a copy on read paths: treat it
 * as read-only.
 */
public record KeyValue(Key key, byte[] value) {
  public KeyValue {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
  }
}
