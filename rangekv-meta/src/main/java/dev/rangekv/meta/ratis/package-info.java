/**
 * The meta range's adapter to Apache Ratis: its group id and peers ({@code MetaGroups}), its state
 * machine over the library-free {@code state.MetaState} ({@code MetaStateMachine}, whole-state snapshots
 * and the fetch of the leader's one), and {@code RaftMetaGroup}, the {@code state.MetaGroup} a node's
 * controller uses. Only the node's consensus adapter ({@code dev.rangekv.server.ratis}) depends on it;
 * nothing in {@code state} or {@code controller} does.
 */
package dev.rangekv.meta.ratis;
