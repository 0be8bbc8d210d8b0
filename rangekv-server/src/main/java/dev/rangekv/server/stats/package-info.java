/**
 * Per-range load measured on the leader's request path (counts, a priority sample of request keys,
 * the append signal) and the node's heartbeat built from it plus store sizes and Raft leadership.
 * The rpc package records into it; the node wires it; nothing in replica or split depends on it.
 */
package dev.rangekv.server.stats;
