/**
 * The consensus seam: what a node needs from Raft, in the node's own terms (range ids, node ids, range
 * commands and their results). {@code RangeConsensus} is a node-level engine that creates, closes,
 * reopens and destroys range groups and proposes, reads, changes membership and moves leadership for
 * them through futures, with no assumption of a thread per group; {@code MetaConsensus} does the same for
 * the meta range's group; failures are {@code ConsensusException}s of a few kinds; {@code GroupEvents}
 * (leadership and configuration changes) reach listeners through each engine's {@code GroupEventHub}.
 * The engine hands committed entries to each range's {@code replica.RangeReplica}. The one engine today is the adapter in
 * {@code dev.rangekv.server.ratis}; the operation packages (raft, replica, move, merge, dormancy, split,
 * rpc, stats, observe, meta) see only this package. Depends on proto and the meta module's {@code
 * MetaGroup}; nothing here depends on an engine.
 */
package dev.rangekv.server.consensus;
