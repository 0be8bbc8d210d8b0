/**
 * The controller shell on the meta leader: keeps the latest per-range stats from heartbeats ({@link
 * dev.rangekv.meta.controller.StatsBook}), builds a {@code ClusterSnapshot} each tick ({@link
 * dev.rangekv.meta.controller.SnapshotBuilder}), calls {@code core.controller.ControllerPlanner} and
 * runs the operators it returns in an {@link dev.rangekv.meta.controller.OperatorQueue}, each step one
 * non-blocking node-admin call ({@link dev.rangekv.meta.controller.StepCalls}; {@link
 * dev.rangekv.meta.controller.Controller}, ticked by {@link dev.rangekv.meta.controller.ControllerLoop}),
 * logging every decision (taken or declined) as an event; answers "why" ({@link
 * dev.rangekv.meta.controller.WhyBook}), the admin calls and the whole meta API ({@link
 * dev.rangekv.meta.controller.MetaServiceImpl}). Codes against {@code meta.state}'s interfaces only;
 * nothing in {@code meta.state} depends on it. Its classes pass core's values; wire messages are built
 * and read only at the edges: the gRPC services ({@code MetaServiceImpl}, {@code MetaNodeServiceImpl},
 * {@code RangeWatchers}) and the outbound node calls ({@code StepCalls}, {@code MetaReplicaCalls}).
 */
package dev.rangekv.meta.controller;
