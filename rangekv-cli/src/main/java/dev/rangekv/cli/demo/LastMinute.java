package dev.rangekv.cli.demo;

import dev.rangekv.client.KeyValue;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.scan.ScanOptions;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyCodec;
import dev.rangekv.core.key.RangeEnd;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;

/**
 * "The last minute of events", asked of each key design: by time, one range scan of the window; by
 * order id, a scan of the whole table filtered on event_ts (time order lost); bucketed, B window scans
 * merged in time order by {@link dev.rangekv.client.keydesign.BucketedKeyspace}. Measures what each
 * read and checks that the answer came in time order.
 *
 * @param phase the key design asked
 * @param events events in the window
 * @param keysRead keys the scans returned (the cost)
 * @param scans scans issued
 * @param millis wall time of the query
 * @param timeOrdered the answer came in event_ts order
 */
record LastMinute(Phase phase, long events, long keysRead, int scans, long millis, boolean timeOrdered) {
  private static final ScanOptions PAGES = ScanOptions.defaults().withPageSize(1000);

  static LastMinute ask(RangeKvClient client, Phase phase, long fromMillis, long toMillis) {
    long start = System.nanoTime();
    Key lo = phase.timeBound(fromMillis);
    RangeEnd hi = RangeEnd.at(phase.timeBound(toMillis));
    Iterator<KeyValue> it;
    int scans = 1;
    switch (phase) {
      case BY_TIME -> it = client.scan(lo, hi, PAGES);
      case BY_ORDER -> it = client.scan(phase.tablePrefix(), phase.tablePrefix().prefixEnd(), PAGES);
      default -> {
        it = Phase.BUCKETS.scan(client, lo, hi, PAGES);
        scans = Phase.BUCKETS.buckets();
      }
    }
    long events = 0;
    long read = 0;
    long last = Long.MIN_VALUE;
    boolean ordered = true;
    while (it.hasNext()) {
      List<Object> tuple = KeyCodec.decode(it.next().key());
      read++;
      long ts = ((Instant) tuple.get(phase == Phase.BY_ORDER ? 2 : 1)).toEpochMilli();
      if (ts < fromMillis || ts >= toMillis) {
        continue; // only the full-table scan of the order-id design reads events outside the window
      }
      events++;
      ordered &= ts >= last;
      last = Math.max(last, ts);
    }
    return new LastMinute(phase, events, read, scans, (System.nanoTime() - start) / 1_000_000, ordered);
  }
}
