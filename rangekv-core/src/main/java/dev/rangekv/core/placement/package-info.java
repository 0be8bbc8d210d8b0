/**
 * Placement rules: which nodes may hold a span's replicas (label constraints, zones to spread over),
 * how many replicas it keeps and where its leader should be; the rule set with "most specific span
 * wins"; validation of a rule against the known nodes; the conformance check of one range; and the
 * placement policy that moves replicas and leaderships toward conformance. Pure; the repair and
 * rebalance policies consult the rules too, so no plan places a replica a rule forbids.
 */
package dev.rangekv.core.placement;
