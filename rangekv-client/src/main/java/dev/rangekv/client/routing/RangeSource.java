package dev.rangekv.client.routing;

import java.util.concurrent.CompletableFuture;

/**
 * Where the cache is (re)filled from: the meta range ({@link MetaRangeSource}), or the nodes'
 * {@code ListRanges} ({@link NodeListRangeSource}) in a cluster without one. Implementations must be thread-safe
 * and must not block the caller.
 */
public interface RangeSource {

  /** Fetches descriptors; {@code known} is the cache as it is now (e.g. for node addresses to ask). */
  CompletableFuture<RangeSnapshot> fetch(RouteTable known);
}
