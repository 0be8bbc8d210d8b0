/**
 * Routing: the client's cache of range descriptors ({@link RouteTable}, immutable, replaced on every
 * update; {@link RouteCache} shares one refresh between concurrent misses), where it is refilled from
 * ({@link RangeSource}), and the retry loop ({@link Router}) driven by pure decisions ({@link
 * RetryPolicy}, {@link ReplicaChooser}, {@link CacheFold}). Nothing outside the client depends on it.
 */
package dev.rangekv.client.routing;
