/**
 * The consensus seam on Apache Ratis 3.3, and the only server package that imports it: {@code
 * RatisEngine} starts and stops the node's Ratis server (properties, TLS, Netty loops, the port check,
 * the storage layout that parks dormant groups) and exposes {@code RatisRangeConsensus} and {@code
 * RatisMetaConsensus}; {@code RangeStateMachine} is a thin state machine around each range's
 * {@code replica.RangeReplica}. Beside them: the range-to-group id mapping ({@code RangeGroups}), the
 * forced campaign of a freshly opened replica ({@code Candidacy}), commands as objects on the leader
 * ({@code ProtoMessage}), the meta group's peers file ({@code MetaPeersFile}) and Ratis' own timers
 * bridged into the node's registry ({@code RaftMetrics}). Every Ratis workaround lives here with the
 * reason it exists. Only the node's wiring depends on this package.
 */
package dev.rangekv.server.ratis;
