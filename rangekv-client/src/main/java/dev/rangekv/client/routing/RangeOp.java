package dev.rangekv.client.routing;

import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.RangeMap;
import dev.rangekv.proto.WriteId;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One request to one range, as the {@link Router} retries it. The op picks its range from the cache at
 * every attempt, so news learnt from a failure re-routes the next attempt.
 *
 * @param <T> the reply
 */
public interface RangeOp<T> {

  /** True for writes: they carry a write id and may end ambiguous. */
  boolean isWrite();

  /**
   * The range to send to under {@code map}, or empty when the op no longer fits in one range (its keys
   * now span several): the router then fails with {@link ReplanException} and the caller re-plans.
   */
  Optional<RangeDescriptor> target(RangeMap map);

  /** Sends one attempt to {@code range} (its header names the range's id and generation). */
  CompletableFuture<T> send(NodeCalls calls, RangeDescriptor range, WriteId writeId);

  /** Fixed text plus key=value context for error messages, e.g. {@code put key="a"}. */
  String describe();
}
