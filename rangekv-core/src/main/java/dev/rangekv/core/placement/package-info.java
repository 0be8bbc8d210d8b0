/**
 * Placement policy over the rules of {@code core.cluster} (which nodes may hold a span's replicas, how
 * many it keeps, where its leader should be; the most specific span wins): validation of a rule against
 * the known nodes, the conformance check of one range, and the policy that moves replicas and
 * leaderships toward conformance. Pure; the repair and rebalance policies consult the rules too, so no
 * plan places a replica a rule forbids.
 */
package dev.rangekv.core.placement;
