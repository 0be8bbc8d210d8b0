/**
 * The controller shell on the meta leader: keeps the latest per-range stats from heartbeats, builds a
 * {@code ClusterSnapshot} each tick, calls {@code core.controller.ControllerPlanner} and executes the
 * plan through {@link dev.rangekv.meta.controller.RangeActions}, logging every decision (taken or
 * declined) as an event; answers "why" and the admin calls.
 */
package dev.rangekv.meta.controller;
