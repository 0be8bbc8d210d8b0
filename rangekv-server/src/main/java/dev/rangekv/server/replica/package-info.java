/**
 * The range state machine: one instance per Raft group, applying validated commands to the node's
 * shared store in one write batch with the applied index. Depends on storage, proto and Ratis; the
 * raft, rpc and node packages build on it, never the reverse.
 */
package dev.rangekv.server.replica;
