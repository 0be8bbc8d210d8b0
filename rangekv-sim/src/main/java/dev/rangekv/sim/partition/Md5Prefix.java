package dev.rangekv.sim.partition;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** The first 8 bytes of an MD5 digest as a big-endian long (seed 003's hash). */
final class Md5Prefix {
  private static final MessageDigest PROTOTYPE = load();

  private Md5Prefix() {}

  static long hash64(byte[] data, int offset, int length) {
    MessageDigest md = copy();
    md.update(data, offset, length);
    byte[] d = md.digest();
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (d[i] & 0xFFL);
    }
    return v;
  }

  private static MessageDigest copy() {
    try {
      // Cloning avoids the provider lookup on every call; MessageDigest itself is not thread-safe.
      return (MessageDigest) PROTOTYPE.clone();
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException("MD5 digest must be cloneable", e);
    }
  }

  private static MessageDigest load() {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK must provide MD5", e);
    }
  }
}
