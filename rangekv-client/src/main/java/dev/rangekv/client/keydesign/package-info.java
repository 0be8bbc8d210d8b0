/**
 * Key-design helpers on top of the client: {@link BucketedKeyspace} spreads
 * monotonic keys over B hash buckets and scans them back in key order with a k-way merge; {@link
 * HotCounter} write-shards one hot counter with separate reader and writer lists changed in the safe
 * order. Reuses {@code dev.rangekv.core.keydesign}; nothing depends on this package.
 */
package dev.rangekv.client.keydesign;
