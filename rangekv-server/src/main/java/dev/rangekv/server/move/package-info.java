/**
 * Replica moves: span snapshots streamed between nodes (export at one applied point, bounded chunks,
 * a bandwidth limit, ingest on the new replica), adding and removing replicas through the consensus seam
 * configuration changes recorded by a generation-bumping command (run as future chains: no thread
 * waits on a step), leadership transfer, and {@code NodeAdminClient}, a blocking tool for tests and
 * benchmarks that chains them into a move (the controller sends each step itself). Depends on
 * raft (gateway and peer channels), replica and storage; the node package wires it up.
 */
package dev.rangekv.server.move;

