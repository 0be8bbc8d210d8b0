/**
 * Range splits, one operation in one place. Life of a split:
 *
 * <ol>
 *   <li>Decide: the meta leader's controller plans a size or load split (or runs an admin {@code split}
 *       / {@code presplit}) as an operator whose step takes a range id granted by the meta range
 *       ({@code allocate_range_ids}, core's {@code RangeIds}) and sends {@code SplitRangeRequest} with
 *       it as {@code child_range_id} to the range's leader. Tools and tests may send one without an id.
 *   <li>Propose ({@link dev.rangekv.server.split.SplitProposer}, behind the thin {@code
 *       rpc.NodeAdminServiceImpl}): on the leader, check the key (or find the store's midpoint), take
 *       the request's child id or ask the meta range for one ({@link
 *       dev.rangekv.server.split.RangeIdSource}, {@code meta.MetaRangeIds}), and propose one {@code
 *       SplitCommand} at the request's generation. Of two proposals at one generation only one
 *       applies; the other's id is a gap.
 *   <li>Apply ({@link dev.rangekv.server.split.SplitApplier}, called by {@code
 *       replica.RangeReplica} on every replica after {@code replica.RangeChecks} passed): the
 *       parent shrinks at generation + 1 and the child is recorded, in one synced write batch.
 *   <li>Child group: once that batch is durable, {@code replica.ReplicaDirectory} tells {@code
 *       node.GroupReconciler}, which creates the child's Raft group on this node (and re-creates it at
 *       start and periodically, since this happens outside the atomic apply); the child serves nothing
 *       before its parent's split applied here. The leader then hurries the followers and the child's
 *       first election ({@code dormancy.RangeWaker#splitApplied}). A child born dormant (the request's
 *       {@code child_dormant}, set by a pre-split, honoured while the node's dormancy is on) is recorded
 *       with its dormancy mark in the same batch instead: no replica creates its group until the first
 *       request, operator step or peer's wake opens it ({@code dormancy.RangeWaker}).
 * </ol>
 *
 * <p>Depends on core, proto, storage only: the replica package calls the apply step, and the propose
 * step reaches the node's replicas and Raft groups through {@link dev.rangekv.server.split.SplitHost}.
 */
package dev.rangekv.server.split;
