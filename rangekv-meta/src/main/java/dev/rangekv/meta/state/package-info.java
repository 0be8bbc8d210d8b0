/**
 * The meta range's state: descriptors keyed by start key (highest generation wins, the map always
 * tiles), node records, a bounded event log and the range-id allocator (every range but the first gets
 * its id granted here); its Ratis state machine and snapshots. Its views speak core's values
 * ({@code RangeDescriptor}, {@code NodeInfo}, {@code Event}) and proposers hand it typed {@code MetaChange}s;
 * protobuf appears only in the Raft command codec ({@code MetaState.apply}, {@code MetaCommands}), the
 * Raft shell and snapshot ({@code RaftMetaGroup}, {@code MetaStateMachine}, {@code LeaderSnapshotFetch})
 * and {@code RangeWire}.
 */
package dev.rangekv.meta.state;
