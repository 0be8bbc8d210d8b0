package dev.rangekv.server.replica;

/**
 * A range's span snapshot fetched from the leader's node and staged on local disk: the data of the
 * range's span and its local state at one applied index. Installed by the state machine as soon as it
 * arrives, before the consensus engine learns its index (so a crash never leaves the engine ahead of the store), or
 * discarded. Not thread-safe: one owner at a time.
 */
public interface StagedSpan {
  long appliedTerm();

  long appliedIndex();

  /** Replaces the span's data and the range's local state on this node with the staged ones. */
  void install();

  /** Deletes the staged files without installing them. */
  void discard();
}
