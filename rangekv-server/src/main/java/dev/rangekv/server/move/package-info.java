/**
 * Replica moves: span snapshots streamed between nodes (export at one applied point, bounded chunks,
 * a bandwidth limit, ingest on the new replica), adding and removing replicas through Ratis
 * configuration changes recorded by a generation-bumping command, leadership transfer, and the
 * admin-side {@code MoveClient} that chains them into a move. Depends on replica, storage and the
 * rpc package's gateway and node channels; the node package wires it up.
 */
package dev.rangekv.server.move;
