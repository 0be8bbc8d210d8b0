package dev.rangekv.cli.workload;

import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.ScanPageResult;
import dev.rangekv.client.scan.ScanOptions;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.random.RandomGenerator;

/**
 * Issues one workload operation through the client's async API. The future completes with true when
 * the operation took effect, false for a compare-and-set conflict, exceptionally for a failure.
 * Thread-safe (the client is; the caller passes its own random).
 */
final class Operations {
  private final RangeKvClient client;
  private final int valueBytes;

  Operations(RangeKvClient client, int valueBytes) {
    this.client = client;
    this.valueBytes = valueBytes;
  }

  CompletableFuture<Boolean> run(OpKind kind, long index, int scanLength, RandomGenerator random) {
    Key key = KeySpace.key(index);
    return switch (kind) {
      case READ -> client.getAsync(key).thenApply(v -> true);
      case UPDATE, INSERT -> client.putAsync(key, value(random)).thenApply(v -> true);
      case SCAN -> scan(key, scanLength);
      case READ_MODIFY_WRITE -> {
        byte[] next = value(random);
        yield client.getAsync(key)
            .thenCompose(old -> client.compareAndSetAsync(key, old, Optional.of(next)))
            .thenApply(r -> r.succeeded());
      }
    };
  }

  /** Up to {@code n} keys from {@code from}: pages continue across range boundaries until n or the end. */
  private CompletableFuture<Boolean> scan(Key from, int n) {
    ScanOptions options = ScanOptions.defaults().withLimit(n).withPageSize(n);
    return client.scanPageAsync(from, RangeEnd.INFINITY, options).thenCompose(p -> more(from, p, n, options, n));
  }

  private CompletableFuture<Boolean> more(Key from, ScanPageResult page, int n, ScanOptions options, int left) {
    int rest = left - page.entries().size();
    if (rest <= 0 || page.next().isEmpty()) {
      return CompletableFuture.completedFuture(true);
    }
    ScanOptions next = options.withAfter(page.next().get()).withLimit(rest).withPageSize(rest);
    return client.scanPageAsync(from, RangeEnd.INFINITY, next).thenCompose(p -> more(from, p, n, next, rest));
  }

  private byte[] value(RandomGenerator random) {
    byte[] v = new byte[valueBytes];
    random.nextBytes(v);
    return v;
  }
}
