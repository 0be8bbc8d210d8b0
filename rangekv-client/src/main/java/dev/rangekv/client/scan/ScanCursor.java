package dev.rangekv.client.scan;

import dev.rangekv.core.key.Key;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;

/**
 * Where a scan stopped: the last key it returned and its direction. Resuming continues strictly after
 * that key, whatever splits happened in between, so a cursor can cross an HTTP request. Serializes to
 * bytes ({@code [version=1][direction 'f'|'r'][key]}) or URL-safe base64 text. Immutable.
 *
 * @param lastKey the last key returned
 * @param reverse the scan's direction
 */
public record ScanCursor(Key lastKey, boolean reverse) {
  private static final byte VERSION = 1;

  public ScanCursor {
    Objects.requireNonNull(lastKey, "lastKey");
  }

  public byte[] toBytes() {
    byte[] out = new byte[2 + lastKey.size()];
    out[0] = VERSION;
    out[1] = (byte) (reverse ? 'r' : 'f');
    lastKey.copyTo(out, 2);
    return out;
  }

  public static ScanCursor fromBytes(byte[] bytes) {
    if (bytes.length < 2 || bytes[0] != VERSION || (bytes[1] != 'f' && bytes[1] != 'r')) {
      throw new IllegalArgumentException("not a scan cursor: " + Arrays.toString(Arrays.copyOf(bytes, Math.min(4, bytes.length))));
    }
    return new ScanCursor(Key.of(bytes, 2, bytes.length - 2), bytes[1] == 'r');
  }

  /** URL-safe base64 of {@link #toBytes()}, without padding. */
  public String encode() {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(toBytes());
  }

  public static ScanCursor decode(String text) {
    try {
      return fromBytes(Base64.getUrlDecoder().decode(text));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("not a scan cursor: \"" + text + "\"", e);
    }
  }
}
