/**
 * How RangeKV makes gRPC calls: the call stream ({@code KvService.Calls}), many KV calls to one node
 * multiplexed on one gRPC stream (the serving adapter lives here so every server of the KV API, a node
 * or a test's fake, answers alike), and unary calls as futures ({@code UnaryCalls}).
 */
package dev.rangekv.proto.calls;
