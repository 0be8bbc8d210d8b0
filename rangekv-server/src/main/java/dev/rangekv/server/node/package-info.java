/**
 * A RangeKV node process: its config, the consensus engine it starts (the Ratis adapter) with one group
 * per range replica, group creation and reconciliation, bootstrap of a new cluster, and {@code
 * LocalCluster} (several nodes in one JVM, for tests and the demo). Depends on every other server
 * package; nothing depends on it.
 */
package dev.rangekv.server.node;
