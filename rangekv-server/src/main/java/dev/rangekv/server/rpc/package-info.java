/**
 * The node's gRPC services, adapters only: the client KV API (through the {@code raft} package's
 * gateway and proposal buffers), node admin (splits, merges, moves, dormancy), replica span transfer and
 * cluster identity, with their input limits. Depends on raft, replica, split, move, merge and stats; the
 * node package wires it up; nothing depends on it but node.
 */
package dev.rangekv.server.rpc;
