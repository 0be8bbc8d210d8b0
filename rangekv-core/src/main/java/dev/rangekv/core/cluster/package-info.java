/**
 * The cluster as the controller sees it, and the vocabulary its policies share: the stats gathered from
 * heartbeats ({@link dev.rangekv.core.cluster.ClusterSnapshot}: nodes, ranges, moves in flight, recent
 * splits, the placement rules), the {@link dev.rangekv.core.cluster.ControllerConfig} they obey, the
 * actions they plan ({@link dev.rangekv.core.cluster.Move}, {@link dev.rangekv.core.cluster.LeaderTransfer})
 * and the {@link dev.rangekv.core.cluster.Explanation} every decision carries. Plain immutable data;
 * depends on {@code core.key} and {@code core.rangemap} only, and every policy package depends on it.
 */
package dev.rangekv.core.cluster;
