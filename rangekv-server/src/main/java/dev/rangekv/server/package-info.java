/**
 * A RangeKV node: one Raft group per range replica over one shared store, run by a consensus engine
 * behind the node's own seam. Sub-packages: {@code node} (process, config, in-JVM cluster), {@code
 * consensus} (the seam), {@code ratis} (the Ratis adapter behind it), {@code replica} (the range
 * replica and its apply logic), {@code rpc} (gRPC services), {@code split} (split commands and
 * child-group creation).
 */
package dev.rangekv.server;
