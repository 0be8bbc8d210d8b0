/**
 * What a node shows about itself: Micrometer meters (gRPC requests, store, replicas, per-range load,
 * Raft latencies from the consensus engine's own meters plus the apply timer, controller), the HTTP port serving
 * {@code /metrics}, {@code /health} and the web console. Nothing in the request path depends on this
 * package beyond the gRPC interceptor it installs and the apply-time callback the replica directory calls.
 */
package dev.rangekv.server.observe;
