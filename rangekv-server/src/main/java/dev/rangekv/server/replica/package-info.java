/**
 * A range replica, free of any consensus library: {@code RangeReplica} checks commands on the leader and
 * again at apply, dispatches each committed command through a table of appliers ({@code CommandTable}:
 * grouped writes, splits, replica changes, freezes and merges, dormancy marks, restore ingests), writes
 * each entry in one write batch with the applied index, serves reads and installs span snapshots; what
 * it needs from its node ({@code ReplicaHost}); the directory of the node's replicas.
 * Depends on storage, proto, core and split; the consensus adapter, raft, rpc and node build on it, never
 * the reverse.
 */
package dev.rangekv.server.replica;
