/**
 * The meta range's state: descriptors keyed by start key (highest generation wins, the map always
 * tiles), node records, a bounded event log and the range-id allocator (every range but the first gets
 * its id granted here); and {@code MetaGroup}, the replica of it a node runs, through which the
 * controller reads and proposes. Its views speak core's values ({@code RangeDescriptor}, {@code NodeInfo},
 * {@code Event}) and proposers hand it typed {@code MetaChange}s; protobuf appears only in the Raft command
 * codec ({@code MetaState.apply}, {@code MetaCommands}), snapshots and {@code RangeWire}. No consensus
 * library type appears here: the Raft shell is in {@code dev.rangekv.meta.ratis}.
 */
package dev.rangekv.meta.state;
