/**
 * A range replica, free of any consensus library: {@code RangeReplica} checks commands on the leader and
 * again at apply, dispatches each committed command through a table of appliers, writes each entry in
 * one write batch with the applied index, and serves reads; the directory of the node's replicas.
 * Depends on storage, proto, core and split; the consensus adapter, raft, rpc and node build on it, never
 * the reverse.
 */
package dev.rangekv.server.replica;
