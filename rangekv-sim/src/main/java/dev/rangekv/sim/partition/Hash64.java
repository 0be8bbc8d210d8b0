package dev.rangekv.sim.partition;

import dev.rangekv.core.key.Key;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * A deterministic 64-bit hash of a byte string; implementations are stateless and thread-safe.
 *
 * <p>Values are compared as unsigned numbers everywhere in this package, matching the seeds' Python
 * ({@code int.from_bytes(..., "big")} yields a non-negative int).
 */
@FunctionalInterface
public interface Hash64 {
  /** The hash of {@code data[offset, offset + length)}. */
  long hash(byte[] data, int offset, int length);

  default long hash(byte[] data) {
    return hash(data, 0, data.length);
  }

  default long hash(Key key) {
    return hash(key.toByteArray());
  }

  /** The hash of the UTF-8 bytes of {@code text}, as the seeds' {@code text.encode()} does. */
  default long hash(String text) {
    return hash(text.getBytes(StandardCharsets.UTF_8));
  }

  /** xxHash64 with seed 0: the fast default. */
  Hash64 XXH64 = (data, offset, length) -> XxHash64.hash(data, offset, length, 0L);

  /**
   * BLAKE2b with an 8-byte digest (digest length 8 in the parameter block, not a truncated 64-byte
   * digest), read big-endian: seed 004's {@code hashlib.blake2b(b, digest_size=8)}.
   */
  Hash64 BLAKE2B_64 = Blake2b::hash64;

  /** The first 8 bytes of MD5, read big-endian: seed 003's {@code md5(b).digest()[:8]}. */
  Hash64 MD5_64 = Md5Prefix::hash64;

  /** The names accepted by {@link #named(String)}. */
  List<String> NAMES = List.of("xxh64", "blake2b64", "md5");

  /** Looks a hash up by name: {@code xxh64}, {@code blake2b64} or {@code md5} (case-insensitive). */
  static Hash64 named(String name) {
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "xxh64", "xxhash64" -> XXH64;
      case "blake2b64", "blake2b" -> BLAKE2B_64;
      case "md5", "md5-64" -> MD5_64;
      default -> throw new IllegalArgumentException("unknown hash name=" + name + ", expected one of " + NAMES);
    };
  }
}
