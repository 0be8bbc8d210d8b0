/**
 * Conversions between the wire messages of {@code dev.rangekv.proto} and core values (keys, bounds,
 * descriptors), and the typed-error transport over gRPC trailers. Shared by the server and the client
 * so both read errors the same way; depends only on core, protobuf and gRPC.
 */
package dev.rangekv.proto.convert;
