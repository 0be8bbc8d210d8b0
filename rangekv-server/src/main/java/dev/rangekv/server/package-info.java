/**
 * A RangeKV node: one Ratis server hosting one Raft group per range replica over one shared store.
 * Sub-packages: {@code node} (process, config, in-JVM cluster), {@code replica} (the range state
 * machine), {@code rpc} (gRPC services), {@code split} (split commands and child-group creation).
 */
package dev.rangekv.server;
