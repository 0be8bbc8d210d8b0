package dev.rangekv.client;

import dev.rangekv.client.routing.BatchPlan;
import dev.rangekv.client.routing.ReplanException;
import dev.rangekv.client.routing.Router;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeMap;
import dev.rangekv.core.rangemap.RoutedBatch;
import dev.rangekv.core.rangemap.ScanPiece;
import dev.rangekv.proto.MultiGetResponse;
import dev.rangekv.proto.OptionalValue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Multi-range calls: a batch get (one sorted merge-walk groups the keys, one request per range, all in
 * parallel) and a delete-range (one piece per range). A part whose keys span several ranges after a
 * split is re-planned along the refreshed cache and keeps its attempt count, so the bound still holds.
 */
final class Batches {
  private Batches() {}

  /** Values of {@code keys} in request order (duplicates allowed). */
  static CompletableFuture<List<Optional<byte[]>>> batchGet(Router router, List<Key> keys, long deadline) {
    if (keys.isEmpty()) {
      return CompletableFuture.completedFuture(List.of());
    }
    List<Key> sorted = BatchPlan.sortedUnique(keys);
    byte[][] values = new byte[sorted.size()][];
    return getSorted(router, sorted, 0, values, deadline, 0).thenApply(v -> {
      List<Optional<byte[]>> out = new ArrayList<>(keys.size());
      for (Key k : keys) {
        byte[] value = values[Collections.binarySearch(sorted, k)];
        out.add(Optional.ofNullable(value).map(byte[]::clone));
      }
      return out;
    });
  }

  /** Reads {@code sorted} (a slice starting at {@code offset} of the whole) into {@code values}. */
  private static CompletableFuture<Void> getSorted(Router router, List<Key> sorted, int offset, byte[][] values,
      long deadline, int attemptsUsed) {
    RangeMap map = router.cache().current().map();
    List<CompletableFuture<Void>> parts = new ArrayList<>();
    int at = offset;
    for (RoutedBatch group : BatchPlan.group(map, sorted)) {
      int groupOffset = at;
      List<Key> groupKeys = group.keys();
      at += groupKeys.size();
      CompletableFuture<Void> part = router.execute(KvOps.multiGet(groupKeys), deadline, attemptsUsed)
          .thenAccept(resp -> fill(resp, groupOffset, values))
          .exceptionallyCompose(e -> {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof ReplanException r) {
              return getSorted(router, groupKeys, groupOffset, values, deadline, r.attempts());
            }
            return CompletableFuture.failedFuture(cause);
          });
      parts.add(part);
    }
    return CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0]));
  }

  private static void fill(MultiGetResponse resp, int offset, byte[][] values) {
    for (int i = 0; i < resp.getValuesCount(); i++) {
      OptionalValue v = resp.getValues(i);
      values[offset + i] = v.getFound() ? v.getValue().toByteArray() : null;
    }
  }

  /** Deletes {@code [lo, hi)}: one piece per range, in parallel; not atomic across ranges. */
  static CompletableFuture<Void> deleteRange(Router router, Key lo, RangeEnd hi, long deadline, int attemptsUsed) {
    List<CompletableFuture<Void>> parts = new ArrayList<>();
    for (ScanPiece piece : router.cache().current().map().scanPlan(lo, hi)) {
      parts.add(router.execute(KvOps.deleteRange(piece.lo(), piece.hi()), deadline, attemptsUsed)
          .exceptionallyCompose(e -> {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof ReplanException r) {
              return deleteRange(router, piece.lo(), piece.hi(), deadline, r.attempts());
            }
            return CompletableFuture.failedFuture(cause);
          }));
    }
    return CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0]));
  }

  static String describe(List<Key> keys) {
    return keys.size() <= 4 ? keys.toString() : Arrays.toString(keys.subList(0, 4).toArray()) + "...";
  }
}
