/**
 * The call stream ({@code KvService.Calls}): many KV calls to one node multiplexed on one gRPC stream.
 * The serving adapter lives here so every server of the KV API (a node, a test's fake) answers alike.
 */
package dev.rangekv.proto.calls;
