/**
 * Replica moves: span snapshots streamed between nodes (export at one applied point, bounded chunks,
 * a bandwidth limit, ingest on the new replica), adding and removing replicas ({@code ReplicaChanges}: a
 * membership change through the consensus seam, then a generation-bumping command that records the new
 * replica set; run as future chains, no thread waits on a step), preparing and dropping local replicas
 * ({@code LocalReplicas}), leadership transfer, and {@code NodeAdminClient}, a blocking tool for tests
 * and benchmarks that chains them into a move (the controller sends each step itself). Depends on
 * consensus, raft (gateway and peer channels), replica and storage; rpc, merge and backup use it, and
 * the node package wires it up.
 */
package dev.rangekv.server.move;

