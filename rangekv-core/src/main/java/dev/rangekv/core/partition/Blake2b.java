package dev.rangekv.core.partition;

import java.util.Arrays;

/**
 * Unkeyed BLAKE2b (RFC 7693) in pure Java, any digest length from 1 to 64 bytes.
 *
 * <p>The digest length is part of the parameter block, so an 8-byte BLAKE2b is a different function
 * from the first 8 bytes of a 64-byte BLAKE2b; {@link #hash64} is the former, like Python's
 * {@code hashlib.blake2b(data, digest_size=8)}.
 */
public final class Blake2b {
  private static final long[] IV = {
      0x6A09E667F3BCC908L, 0xBB67AE8584CAA73BL, 0x3C6EF372FE94F82BL, 0xA54FF53A5F1D36F1L,
      0x510E527FADE682D1L, 0x9B05688C2B3E6C1FL, 0x1F83D9ABFB41BD6BL, 0x5BE0CD19137E2179L,
  };

  private static final byte[][] SIGMA = {
      {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
      {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
      {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
      {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
      {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
      {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
      {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
      {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
      {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
      {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
  };

  private Blake2b() {}

  /** The BLAKE2b digest of {@code data} with {@code digestLength} bytes (1..64). */
  public static byte[] digest(byte[] data, int digestLength) {
    long[] h = state(data, 0, data.length, digestLength);
    byte[] out = new byte[digestLength];
    for (int i = 0; i < digestLength; i++) {
      out[i] = (byte) (h[i >>> 3] >>> (8 * (i & 7)));
    }
    return out;
  }

  /** The 8-byte BLAKE2b digest of the slice, read as a big-endian long. */
  public static long hash64(byte[] data, int offset, int length) {
    // The digest bytes are h[0] in little-endian order; big-endian reading reverses them.
    return Long.reverseBytes(state(data, offset, length, 8)[0]);
  }

  private static long[] state(byte[] data, int offset, int length, int digestLength) {
    if (digestLength < 1 || digestLength > 64) {
      throw new IllegalArgumentException("digestLength must be 1..64, got " + digestLength);
    }
    long[] h = IV.clone();
    h[0] ^= 0x01010000L ^ digestLength; // fanout 1, depth 1, no key
    long[] m = new long[16];
    long counter = 0;
    int pos = offset;
    int end = offset + length;
    // Every full block except the last is compressed as non-final; the last (possibly empty or
    // partial) block is zero-padded and compressed with the final flag.
    while (end - pos > 128) {
      load(m, data, pos, 128);
      counter += 128;
      compress(h, m, counter, false);
      pos += 128;
    }
    int rest = end - pos;
    load(m, data, pos, rest);
    counter += rest;
    compress(h, m, counter, true);
    return h;
  }

  private static void load(long[] m, byte[] data, int pos, int n) {
    Arrays.fill(m, 0L);
    for (int i = 0; i < n; i++) {
      m[i >>> 3] |= (data[pos + i] & 0xFFL) << (8 * (i & 7));
    }
  }

  private static void compress(long[] h, long[] m, long counter, boolean last) {
    long[] v = new long[16];
    System.arraycopy(h, 0, v, 0, 8);
    System.arraycopy(IV, 0, v, 8, 8);
    v[12] ^= counter; // inputs here are < 2^63 bytes, so the high counter word stays zero
    if (last) {
      v[14] = ~v[14];
    }
    for (int r = 0; r < 12; r++) {
      byte[] s = SIGMA[r % 10];
      mix(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
      mix(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
      mix(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
      mix(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
      mix(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
      mix(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
      mix(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
      mix(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
    }
    for (int i = 0; i < 8; i++) {
      h[i] ^= v[i] ^ v[i + 8];
    }
  }

  private static void mix(long[] v, int a, int b, int c, int d, long x, long y) {
    v[a] = v[a] + v[b] + x;
    v[d] = Long.rotateRight(v[d] ^ v[a], 32);
    v[c] = v[c] + v[d];
    v[b] = Long.rotateRight(v[b] ^ v[c], 24);
    v[a] = v[a] + v[b] + y;
    v[d] = Long.rotateRight(v[d] ^ v[a], 16);
    v[c] = v[c] + v[d];
    v[b] = Long.rotateRight(v[b] ^ v[c], 63);
  }
}
