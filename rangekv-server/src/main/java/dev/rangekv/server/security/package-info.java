/**
 * Mutual TLS of a node (client port, node-to-node channels; the consensus transport's TLS is the adapter's) and who may call what:
 * peers are known by their certificate (CN {@code node}: a node of this cluster; any other CN: a user,
 * {@code root} holding the admin role).
 */
package dev.rangekv.server.security;
