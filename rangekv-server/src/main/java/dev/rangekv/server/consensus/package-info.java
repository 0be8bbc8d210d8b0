/**
 * The consensus seam: what a node needs from Raft, in the node's own terms (range ids, node ids, range
 * commands and their results). {@link dev.rangekv.server.consensus.RangeConsensus} is a node-level
 * engine that opens, closes and destroys range groups and proposes, reads, changes membership and moves
 * leadership for them through futures, with no assumption of a thread per group. The one engine today is
 * the Ratis adapter in {@code dev.rangekv.server.ratis}; the operation packages (raft, replica, move,
 * merge, dormancy, split, rpc, stats, observe, meta) see only this package, never a library type.
 */
package dev.rangekv.server.consensus;
