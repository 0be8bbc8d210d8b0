package dev.rangekv.client.readme;

import dev.rangekv.client.*;
import dev.rangekv.client.scan.ScanOptions;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyCodec;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import static java.nio.charset.StandardCharsets.UTF_8;

/** The README's "Use from Java" example, compiled with the tests so the README cannot drift from the API. */
public final class Orders {
  private Orders() {}

  public static void main(String[] args) throws Exception {
    try (RangeKvClient kv = RangeKvClient.connect(List.of("127.0.0.1:7001"), ClientOptions.defaults())) {
      // put and get: keys are bytes; KeyCodec makes tuple keys whose byte order is tuple order
      Key key = KeyCodec.tuple().addString("orders").addLong(42).build();   // shows as /orders/42
      kv.put(key, "{\"status\":\"new\"}".getBytes(UTF_8));
      Optional<byte[]> order = kv.get(key);
      System.out.println(new String(order.orElseThrow(), UTF_8));

      // scan with a cursor: one page at a time (e.g. across HTTP requests), resumed after the last key
      Key lo = KeyCodec.tuple().addString("orders").build();
      ScanOptions page = ScanOptions.defaults().withPageSize(100).withLimit(100);
      ScanPageResult p = kv.scanPageAsync(lo, lo.prefixEnd(), page).get(10, TimeUnit.SECONDS);
      p.entries().forEach(e -> System.out.println(e.key()));
      if (p.next().isPresent()) {   // more: the cursor is the last key returned, never an offset
        p = kv.scanPageAsync(lo, lo.prefixEnd(), page.withAfter(p.next().get())).get(10, TimeUnit.SECONDS);
      }
      kv.scan(lo, lo.prefixEnd()).forEachRemaining(e -> System.out.println(e.key()));   // or lazily, all

      // an atomic batch (across ranges too): all or nothing; a check makes it conditional
      Key audit = KeyCodec.tuple().addString("audit").addTimestamp(Instant.now()).build();
      BatchResult b = kv.atomicBatch(List.of(
          BatchOp.check(key, order),
          BatchOp.put(key, "{\"status\":\"paid\"}".getBytes(UTF_8)),
          BatchOp.put(audit, "order 42 paid".getBytes(UTF_8))));
      System.out.println(b.succeeded() ? "paid" : "changed meanwhile: check " + b.failedCheckIndex());

      // compare-and-set: write only if the value is still what we read
      CasResult cas = kv.compareAndSet(key, kv.get(key), Optional.of("{\"status\":\"shipped\"}".getBytes(UTF_8)));
      System.out.println(cas.succeeded() ? "shipped" : "lost the race; now " + cas.current().map(v -> new String(v, UTF_8)));

      // an error after a write was sent may hide a write that happened: AmbiguousResultException.
      // Every other RangeKvException means it did not happen. Resolve the doubt by reading back.
      byte[] cancelled = "{\"status\":\"cancelled\"}".getBytes(UTF_8);
      try {
        kv.put(key, cancelled);
      } catch (AmbiguousResultException e) {
        boolean applied = kv.get(key).map(v -> java.util.Arrays.equals(v, cancelled)).orElse(false);
        System.out.println("outcome was unknown (" + e.code() + "); read back: " + (applied ? "applied" : "not applied"));
      } catch (RangeKvException e) {
        System.out.println("not written: " + e.code() + (e.isRetryable() ? " (retryable)" : ""));
      }
    }
  }
}
