package dev.rangekv.bench.multiraft;

/** How a spike node runs its groups' Raft state machines, stores and messages. */
public enum Runtime {
  /** A thread (MicroRaft's DefaultRaftNodeExecutor) and a synced write per flush for every group. */
  PER_GROUP,
  /**
   * Two stripe threads per node; one synced batch and one envelope per peer per stripe cycle; every
   * message of a cycle waits for the cycle's sync.
   */
  NODE_WIDE,
  /**
   * As {@link #NODE_WIDE}, but a leader's append requests leave before its own sync (so that leader
   * and followers sync in parallel, as Raft allows), while the leader counts its own log for commit only
   * from the cycle after the sync; replies and votes still wait for the sync. A commit therefore means
   * the entry is synced on a majority, and the client is answered at the apply (whose write, in the
   * cycle batch, a crash may lose: the synced log replays it).
   */
  NODE_WIDE_PIPELINED;

  boolean nodeWide() {
    return this != PER_GROUP;
  }
}
