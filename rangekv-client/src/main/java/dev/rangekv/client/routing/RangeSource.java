package dev.rangekv.client.routing;

import java.util.concurrent.CompletableFuture;

/**
 * Where the cache is (re)filled from. Today: the nodes' {@code ListRanges} ({@link NodeListRangeSource}),
 * which are the authority; the meta range's map trails them by up to a heartbeat, and a cache filled
 * from it made writers run out of attempts during a meta failover (tried and reverted). Implementations must be thread-safe
 * and must not block the caller.
 */
public interface RangeSource {

  /** Fetches descriptors; {@code known} is the cache as it is now (e.g. for node addresses to ask). */
  CompletableFuture<RangeSnapshot> fetch(RouteTable known);
}
