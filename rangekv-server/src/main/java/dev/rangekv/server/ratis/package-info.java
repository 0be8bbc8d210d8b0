/**
 * The consensus seam on Apache Ratis 3.3, and the only server package that imports it: {@code
 * RatisEngine} starts and stops the node's Ratis server (properties, TLS, Netty loops, the port check,
 * the storage layout that parks dormant groups) and exposes {@code RatisRangeConsensus} and {@code
 * RatisMetaConsensus}; {@code RangeStateMachine} is a thin state machine around each range's
 * {@code replica.RangeReplica}. Every Ratis workaround lives here with the reason it exists. Only the
 * node's wiring depends on this package.
 */
package dev.rangekv.server.ratis;
