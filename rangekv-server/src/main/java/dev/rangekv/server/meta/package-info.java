/**
 * A node's part in the meta range: hosting a meta replica (and the controller while it leads),
 * redirecting meta calls when it hosts none, finding the meta leader, sending heartbeats, asking it for
 * the range ids of this node's splits ({@code MetaRangeIds}), and the controller's range actions
 * carried out through the node-admin API.
 */
package dev.rangekv.server.meta;
