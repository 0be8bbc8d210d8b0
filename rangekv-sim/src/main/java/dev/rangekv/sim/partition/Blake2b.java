package dev.rangekv.sim.partition;

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

  /**
   * The compression function F. The working vector lives in locals rather than an array: it runs
   * several times faster on HotSpot, which matters because the simulator hashes millions of inputs.
   */
  private static void compress(long[] h, long[] m, long counter, boolean last) {
    long v0 = h[0], v1 = h[1], v2 = h[2], v3 = h[3], v4 = h[4], v5 = h[5], v6 = h[6], v7 = h[7];
    long v8 = IV[0], v9 = IV[1], v10 = IV[2], v11 = IV[3];
    long v12 = IV[4] ^ counter; // inputs here are < 2^63 bytes, so the high counter word stays zero
    long v13 = IV[5];
    long v14 = last ? ~IV[6] : IV[6];
    long v15 = IV[7];
    for (int r = 0; r < 12; r++) {
      byte[] s = SIGMA[r % 10];
      v0 += v4 + m[s[0]];
      v12 = Long.rotateRight(v12 ^ v0, 32);
      v8 += v12;
      v4 = Long.rotateRight(v4 ^ v8, 24);
      v0 += v4 + m[s[1]];
      v12 = Long.rotateRight(v12 ^ v0, 16);
      v8 += v12;
      v4 = Long.rotateRight(v4 ^ v8, 63);
      v1 += v5 + m[s[2]];
      v13 = Long.rotateRight(v13 ^ v1, 32);
      v9 += v13;
      v5 = Long.rotateRight(v5 ^ v9, 24);
      v1 += v5 + m[s[3]];
      v13 = Long.rotateRight(v13 ^ v1, 16);
      v9 += v13;
      v5 = Long.rotateRight(v5 ^ v9, 63);
      v2 += v6 + m[s[4]];
      v14 = Long.rotateRight(v14 ^ v2, 32);
      v10 += v14;
      v6 = Long.rotateRight(v6 ^ v10, 24);
      v2 += v6 + m[s[5]];
      v14 = Long.rotateRight(v14 ^ v2, 16);
      v10 += v14;
      v6 = Long.rotateRight(v6 ^ v10, 63);
      v3 += v7 + m[s[6]];
      v15 = Long.rotateRight(v15 ^ v3, 32);
      v11 += v15;
      v7 = Long.rotateRight(v7 ^ v11, 24);
      v3 += v7 + m[s[7]];
      v15 = Long.rotateRight(v15 ^ v3, 16);
      v11 += v15;
      v7 = Long.rotateRight(v7 ^ v11, 63);
      v0 += v5 + m[s[8]];
      v15 = Long.rotateRight(v15 ^ v0, 32);
      v10 += v15;
      v5 = Long.rotateRight(v5 ^ v10, 24);
      v0 += v5 + m[s[9]];
      v15 = Long.rotateRight(v15 ^ v0, 16);
      v10 += v15;
      v5 = Long.rotateRight(v5 ^ v10, 63);
      v1 += v6 + m[s[10]];
      v12 = Long.rotateRight(v12 ^ v1, 32);
      v11 += v12;
      v6 = Long.rotateRight(v6 ^ v11, 24);
      v1 += v6 + m[s[11]];
      v12 = Long.rotateRight(v12 ^ v1, 16);
      v11 += v12;
      v6 = Long.rotateRight(v6 ^ v11, 63);
      v2 += v7 + m[s[12]];
      v13 = Long.rotateRight(v13 ^ v2, 32);
      v8 += v13;
      v7 = Long.rotateRight(v7 ^ v8, 24);
      v2 += v7 + m[s[13]];
      v13 = Long.rotateRight(v13 ^ v2, 16);
      v8 += v13;
      v7 = Long.rotateRight(v7 ^ v8, 63);
      v3 += v4 + m[s[14]];
      v14 = Long.rotateRight(v14 ^ v3, 32);
      v9 += v14;
      v4 = Long.rotateRight(v4 ^ v9, 24);
      v3 += v4 + m[s[15]];
      v14 = Long.rotateRight(v14 ^ v3, 16);
      v9 += v14;
      v4 = Long.rotateRight(v4 ^ v9, 63);
    }
    h[0] ^= v0 ^ v8;
    h[1] ^= v1 ^ v9;
    h[2] ^= v2 ^ v10;
    h[3] ^= v3 ^ v11;
    h[4] ^= v4 ^ v12;
    h[5] ^= v5 ^ v13;
    h[6] ^= v6 ^ v14;
    h[7] ^= v7 ^ v15;
  }
}
