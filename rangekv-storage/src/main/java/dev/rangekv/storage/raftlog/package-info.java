/**
 * A node's Raft log database for the node-wide multi-raft engine: one RocksDB of its own (apart from the
 * node's data store) holding every range group's log entries, term and vote, written in cycle batches
 * with one synced write each. Keys and values are the engine's; this package only stores them.
 */
package dev.rangekv.storage.raftlog;
