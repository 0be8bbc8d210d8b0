/**
 * A RangeKV node: one Raft group per range replica over one shared store, run by a consensus engine
 * behind the node's own seam. Sub-packages, one feature each: {@code node} (the process: config,
 * start-up, creating and reconciling Raft groups in {@code node.GroupReconciler}, the in-JVM
 * {@code LocalCluster}), {@code consensus} (the seam: what the node needs from Raft, in its own terms),
 * {@code ratis} (the Apache Ratis engine behind the seam), {@code multiraft} (the experimental
 * node-wide multi-raft engine on MicroRaft, chosen with {@code --engine multiraft}), {@code replica} (the range replica's apply
 * logic and its checks), {@code raft} (submitting to a range's group, proposal buffers, peer channels),
 * {@code rpc} (the gRPC services), {@code split}, {@code move}, {@code merge} and {@code dormancy} (one
 * operation each), {@code backup} (exporting a range for a backup and staging a restore's files),
 * {@code meta} (the node's part in the meta range), {@code stats} (per-range load, heartbeats),
 * {@code observe} (metrics, health, the HTTP port), {@code console} (the web console) and {@code
 * security} (mutual TLS, roles). Only {@code node} wires the engine; the operations see the seam.
 * docs/architecture.md follows requests through them.
 */
package dev.rangekv.server;
