package dev.rangekv.sim.partition;

import dev.rangekv.core.key.Key;
import java.nio.charset.StandardCharsets;

/**
 * Builds the byte strings the schemes hash, in the seeds' formats: {@code "{node}#{v}"} for ring
 * points and {@code "{node}|{key}"} for rendezvous scores (seed 004's {@code hashing.py}).
 */
final class HashInput {
  private HashInput() {}

  static byte[] text(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** {@code prefix} followed by the bytes of {@code key}. */
  static byte[] join(byte[] prefix, Key key) {
    byte[] out = new byte[prefix.length + key.size()];
    System.arraycopy(prefix, 0, out, 0, prefix.length);
    key.copyTo(out, prefix.length);
    return out;
  }

  static byte[] bytes(Key key) {
    return key.toByteArray();
  }
}
