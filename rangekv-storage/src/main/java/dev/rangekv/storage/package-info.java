/**
 * The storage engine of one node: every replica's user data and per-range local state in one RocksDB
 * instance ({@link dev.rangekv.storage.NodeStore}), atomic write batches that carry data and the applied
 * Raft index together, span snapshots for moving replicas, approximate sizes and split keys.
 *
 * <p>RocksDB types never leave this package. It depends on {@code rangekv-core} and rocksdbjni only;
 * nothing in core, proto, meta or client may depend on it.
 */
package dev.rangekv.storage;
