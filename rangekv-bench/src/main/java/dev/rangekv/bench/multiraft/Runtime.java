package dev.rangekv.bench.multiraft;

/** How a spike node runs its groups' Raft state machines, stores and messages. */
public enum Runtime {
  /** A thread (MicroRaft's DefaultRaftNodeExecutor) and a synced write per flush for every group. */
  PER_GROUP,
  /** Two stripe threads per node; one synced batch and one message per peer per stripe cycle. */
  NODE_WIDE
}
