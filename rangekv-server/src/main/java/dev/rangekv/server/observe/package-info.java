/**
 * What a node shows about itself: Micrometer meters (gRPC requests, store, replicas, per-range load,
 * controller), the HTTP port serving {@code /metrics}, {@code /health} and the web console. Nothing in
 * the request path depends on this package beyond the gRPC interceptor it installs.
 */
package dev.rangekv.server.observe;
