/**
 * The node's side of Raft that every operation shares: the gateway that submits commands and queries
 * to a range's local replica through the consensus seam ({@code consensus.RangeConsensus}) and maps each
 * outcome to a typed error, the per-range proposal buffers that group concurrent writes into one entry,
 * and the channels to peer nodes. Depends on consensus, replica and security (the peer channels'
 * TLS) only; rpc, move, merge, dormancy, backup, meta and node build on it, never the reverse.
 */
package dev.rangekv.server.raft;
