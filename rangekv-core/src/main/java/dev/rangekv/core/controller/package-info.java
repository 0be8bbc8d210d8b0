/**
 * The controller's pure planner: one tick turns a {@link dev.rangekv.core.cluster.ClusterSnapshot} and
 * the state carried from the last tick into a {@link dev.rangekv.core.controller.TickPlan} of repairs,
 * splits, merges, moves, leadership transfers and alerts, and {@code OperatorPlanner} turns those
 * decisions into {@link dev.rangekv.core.operator.Operator}s in priority order. The meta range's
 * controller shell gathers the snapshot, calls it and advances the operators; nothing here does I/O.
 */
package dev.rangekv.core.controller;
