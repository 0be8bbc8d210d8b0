/**
 * Replica placement decisions: rebalancing moves and leadership transfers that even out replica
 * counts, bytes, load and leaderships across live nodes, and repair moves that re-create the replicas of
 * dead nodes, and which nodes hold the meta range's voters ({@code MetaVoterPolicy}). Pure functions of {@code core.cluster} data; the controller executes the moves one
 * rate-limited step at a time.
 */
package dev.rangekv.core.rebalance;
