package dev.rangekv.server.meta;

import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.meta.AllocateRangeIdsRequest;
import dev.rangekv.server.split.RangeIdSource;
import dev.rangekv.server.split.SplitRefusedException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * A node's range ids for the splits it proposes without a given child id: one id per split, granted
 * by the meta leader ({@code AllocateRangeIds}) through the node's {@link MetaLocator}, as any peer
 * asks. One at a time, not a cached block: splits are rare next to a meta proposal, and ids then grow
 * in the order splits are proposed across the cluster. A grant whose answer is lost is a gap.
 *
 * <p>The locator's call blocks (it follows NOT_LEADER hints and retries unreachable nodes), so it runs
 * on {@code executor}; it gives up after {@link #DEADLINE}, and the split fails with a retryable
 * {@code UNAVAILABLE}: nothing was proposed. Thread-safe.
 */
public final class MetaRangeIds implements RangeIdSource {
  /** How long a split waits for the meta range to grant its child's id. */
  static final Duration DEADLINE = Duration.ofSeconds(10);
  private static final AllocateRangeIdsRequest ONE = AllocateRangeIdsRequest.newBuilder().setCount(1).build();
  private final MetaLocator locator;
  private final Executor executor;
  private final Duration deadline;

  MetaRangeIds(MetaLocator locator, Executor executor) {
    this(locator, executor, DEADLINE);
  }

  MetaRangeIds(MetaLocator locator, Executor executor, Duration deadline) {
    this.locator = locator;
    this.executor = executor;
    this.deadline = deadline;
  }

  @Override
  public CompletableFuture<Long> next() {
    return CompletableFuture.supplyAsync(() -> locator.report(s -> s.allocateRangeIds(ONE), deadline), executor)
        .handle((granted, e) -> {
          if (e != null) {
            Throwable c = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            throw new SplitRefusedException(RangeKvErrors.unavailable("no range id for the split's child: the meta"
                + " range did not grant one within " + deadline.toMillis() + " ms (" + c.getMessage() + ")", true));
          }
          return granted.getFirstRangeId();
        });
  }
}
