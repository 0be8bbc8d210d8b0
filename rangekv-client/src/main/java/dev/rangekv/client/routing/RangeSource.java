package dev.rangekv.client.routing;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Where the cache is (re)filled from: the meta range ({@link MetaRangeSource}), which falls back to the
 * nodes' own {@code ListRanges} ({@link NodeListRangeSource}) when it is unavailable or trails them.
 * Implementations must be thread-safe and must not block the caller.
 */
public interface RangeSource {

  /** Fetches descriptors; {@code known} is the cache as it is now (e.g. for node addresses to ask). */
  CompletableFuture<RangeSnapshot> fetch(RouteTable known);

  /**
   * Fetches the descriptors of the span {@code [start, end)}: at least the range holding {@code start}.
   * This default lists everything, which covers the span.
   */
  default CompletableFuture<RangeSnapshot> lookup(Key start, RangeEnd end, RouteTable known) {
    return fetch(known);
  }

  /**
   * Where the cache asks when this source's answer taught it nothing about the span it missed on (the
   * source may trail the nodes, as the meta range's map trails a split by up to a report); empty when
   * there is nowhere better to ask.
   */
  default Optional<RangeSource> fallback() {
    return Optional.empty();
  }
}
