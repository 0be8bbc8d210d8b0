package dev.rangekv.server.stats;

import dev.rangekv.core.cluster.TailWrites;
import dev.rangekv.core.cluster.WeightedKey;
import java.util.List;
import java.util.Objects;

/**
 * One range's load over one interval as the node recorded it. Counts are keys touched, not requests:
 * a multiGet of 5 keys is 5 reads, a batch of 3 mutations 3 writes, a scan as many reads as rows it
 * returned (at least 1). Sample weights are estimated key touches over the interval (not per second),
 * so they sum to about {@code reads + writes}.
 *
 * @param rangeId the range
 * @param reads keys read
 * @param writes keys written (puts, deletes, range deletes; a batch's checks are not counted)
 * @param writeBytes bytes those writes carried (a put's key and value, a delete's key, a range delete's bounds)
 * @param sampledKeys priority sample of touched keys; one entry per sampled touch, so a hot key may
 *     appear several times (hot-key detection needs as many entries as the sample holds)
 * @param tail the append signal: keys put, of them above the range's greatest key at the interval's
 *     start, and the greatest key put
 */
public record RangeLoadInterval(long rangeId, long reads, long writes, long writeBytes, List<WeightedKey> sampledKeys,
                                TailWrites tail) {
  public RangeLoadInterval {
    Objects.requireNonNull(tail, "tail");
    sampledKeys = List.copyOf(sampledKeys);
    if (reads < 0 || writes < 0 || writeBytes < 0) {
      throw new IllegalArgumentException("negative counts reads=" + reads + " writes=" + writes + " writeBytes=" + writeBytes);
    }
  }

  /** Nothing was recorded. */
  public boolean isIdle() {
    return reads == 0 && writes == 0 && tail.writes() == 0;
  }
}
