/**
 * The RangeKV Java client: {@link dev.rangekv.client.RangeKvClient} (sync and {@code
 * CompletableFuture} calls), its options, value types and the typed exceptions under {@link
 * dev.rangekv.client.RangeKvException}. Routing lives in {@code client.routing}, scans in {@code
 * client.scan}, key-design helpers in {@code client.keydesign}, the admin API (placement rules) in
 * {@code client.admin}. Depends on core, proto and gRPC only;
 * nothing in the server may depend on it.
 */
package dev.rangekv.client;
