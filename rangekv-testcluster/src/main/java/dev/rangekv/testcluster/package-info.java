/**
 * Fixtures for cluster tests that drive a running cluster through its gRPC API, given its nodes'
 * addresses, as any peer would: a router that follows redirects and splits on a range's leader, the
 * nodes' own listings of their replicas, acknowledged writers with the check that none is lost, and a
 * scan checker. Nothing here knows how the cluster was started (an in-JVM {@code LocalCluster} or
 * processes); only tests may depend on this package.
 */
package dev.rangekv.testcluster;
