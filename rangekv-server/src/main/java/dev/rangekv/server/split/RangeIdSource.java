package dev.rangekv.server.split;

import dev.rangekv.proto.convert.RangeKvErrors;
import java.util.concurrent.CompletableFuture;

/**
 * Where a split's child gets its range id when the request names none: the meta range, which grants
 * ids never granted before (see core's {@code RangeIds}). Implementations must not block the caller.
 */
public interface RangeIdSource {
  /**
   * A fresh range id; fails with a {@link SplitRefusedException} whose error says whether retrying may
   * help (meta unavailable: a retryable {@code UNAVAILABLE}, nothing proposed).
   */
  CompletableFuture<Long> next();

  /**
   * The source of a node without a meta range (the low-level test clusters): refuses, since no one
   * here can grant an id that is unique in the cluster; such a cluster's callers name the child id.
   */
  static RangeIdSource absent() {
    return () -> CompletableFuture.failedFuture(new SplitRefusedException(RangeKvErrors.invalidArgument(
        "child_range_id", "this node runs without a meta range to grant range ids: name the child's id")));
  }
}
