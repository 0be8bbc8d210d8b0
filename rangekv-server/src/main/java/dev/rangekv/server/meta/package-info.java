/**
 * A node's part in the meta range: hosting a meta replica (and the controller while it leads, {@code
 * MetaNode}), redirecting meta calls when it hosts none ({@code MetaRedirect}), finding the meta leader
 * ({@code MetaLocator}), sending heartbeats ({@code HeartbeatLoop}) and asking it for the range ids of
 * this node's splits ({@code MetaRangeIds}). The controller itself lives in {@code rangekv-meta}; its
 * steps reach this node as node-admin calls ({@code rpc.NodeAdminServiceImpl}).
 */
package dev.rangekv.server.meta;
