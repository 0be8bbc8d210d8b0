/**
 * RangeKV's pure core: keys, the range map, policies and partitioners. Nothing here does I/O,
 * starts threads or reads a clock; time is passed in.
 *
 * <h2>Glossary (use these words everywhere: code, logs, CLI, docs)</h2>
 * <ul>
 *   <li><b>Key</b>: a byte string, ordered by unsigned lexicographic comparison.
 *   <li><b>Range</b>: a span {@code [start, end)} of keys, the unit of sharding (not region, shard or tablet).
 *       The ranges tile the keyspace from the empty key to +infinity.
 *   <li><b>Generation</b>: a counter in each range descriptor, bumped by every split, merge and replica change;
 *       a newer generation always replaces an older one.
 *   <li><b>Replica</b>: one copy of a range, held by one node; the replicas of a range form its Raft group.
 *   <li><b>Node</b>: one RangeKV process. <b>Store</b>: a node's storage engine (one RocksDB for all its replicas).
 *   <li><b>Leader</b>: the replica that orders a range's writes. <b>Lease</b>: the leader's time-bounded right to
 *       serve reads without a round of heartbeats.
 * </ul>
 */
package dev.rangekv.core;
