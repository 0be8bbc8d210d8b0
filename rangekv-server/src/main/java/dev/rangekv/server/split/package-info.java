/**
 * Range splits as Raft commands: the deterministic child-id derivation, and the apply step that
 * shortens the parent and records the child in one durable write batch. Depends on storage, proto and
 * core only; creating the child's Raft group is the node's job ({@code node.GroupReconciler}, called back through
 * {@code replica.ReplicaHost} once the split's batch is durable).
 */
package dev.rangekv.server.split;
