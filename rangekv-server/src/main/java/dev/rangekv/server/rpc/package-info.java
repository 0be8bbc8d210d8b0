/**
 * The node's gRPC services (client KV API and node admin) and the gateway that submits commands and
 * queries to the local Ratis group of a range, mapping every outcome to a typed error. Depends on
 * replica, split and stats (load recording); the node package wires it up.
 */
package dev.rangekv.server.rpc;
