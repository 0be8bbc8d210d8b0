/**
 * The experimental multi-raft engine behind the consensus seam ({@code rangekv start --engine multiraft}):
 * every range's MicroRaft node runs on a few stripe threads ({@code Stripe}, {@code StripeExecutor}), each
 * stripe writes a cycle's appends and term/vote changes of all its ranges in one synced batch of the
 * node's log database ({@code GroupLog} over {@code storage.raftlog.LogDb}), and each cycle's Raft
 * messages to a peer node travel in one envelope on one stream ({@code PeerStreams},
 * {@code TransportService}, {@code RaftCodec}). {@code RangeMachine} applies committed entries through the
 * range's {@code replica.RangeReplica}; {@code MultiRaftEngine} implements the seam, and the meta range's
 * group runs on it too ({@code MultiRaftMetaConsensus}, {@code MetaMachine}, {@code MultiRaftMetaGroup}). Temporary until one
 * engine wins: docs/decisions/0013-multi-raft-runtime.md says what it lacks. Only the node's wiring
 * depends on this package.
 */
package dev.rangekv.server.multiraft;
