package dev.rangekv.core.hotspot;

import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.key.Key;
import java.util.Objects;

/** A key-design problem that splitting cannot fix; each alert names the key and suggests a remedy. */
public sealed interface HotspotAlert {
  long rangeId();

  String suggestion();

  Explanation why();

  /**
   * The hottest range has been the one at the end of the written keys for most of the window: keys
   * grow monotonically (timestamps, auto-increment ids), so every insert hits the last range.
   *
   * @param keyPrefix the common prefix of the hot range's sampled keys (may be empty)
   */
  record MonotonicKey(long rangeId, Key keyPrefix, String suggestion, Explanation why) implements HotspotAlert {
    public MonotonicKey {
      Objects.requireNonNull(keyPrefix, "keyPrefix");
      Objects.requireNonNull(suggestion, "suggestion");
      Objects.requireNonNull(why, "why");
    }
  }

  /** One key carries most of a range's load; no split can divide it. */
  record HotKey(long rangeId, Key key, String suggestion, Explanation why) implements HotspotAlert {
    public HotKey {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(suggestion, "suggestion");
      Objects.requireNonNull(why, "why");
    }
  }
}
