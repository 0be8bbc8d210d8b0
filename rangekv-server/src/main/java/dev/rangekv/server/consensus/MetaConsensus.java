package dev.rangekv.server.consensus;

import dev.rangekv.meta.state.MetaGroup;
import java.io.IOException;
import java.util.List;

/**
 * The node's consensus engine for the meta range's group: create it here with its voters (remembered, so
 * a restart reopens it with them), destroy it with its storage, and learn whether the engine closed it
 * on its own. The replica itself reaches the node as an {@link Opened} when the engine opens the group.
 * Implementations are thread-safe.
 */
public interface MetaConsensus {
  /** A meta replica the engine opened here: the group the controller uses, and its apply hook. */
  interface Opened {
    /** This node's replica of the meta range. */
    MetaGroup group();

    /** Has {@code listener} called after each entry this replica applies. */
    void onApplied(Runnable listener);
  }

  /**
   * Creates the meta group here with {@code voters} (this node among them, or joining them); false when it
   * exists already. The engine opens the replica ({@link Opened}) before this returns.
   */
  boolean create(List<Member> voters) throws IOException;

  /**
   * Starts an empty meta replica here for the meta leader to add as a voter, {@code voters} being the
   * configuration it joins; false when one exists already. The engine opens the replica ({@link Opened})
   * before this returns; an engine whose new members learn the group from their leader (the multi-raft
   * engine) starts its group when the leader first reaches it; by default it is created with {@code voters}.
   */
  default boolean prepare(List<Member> voters) throws IOException {
    return create(voters);
  }

  /**
   * True when a meta replica already here must be removed before this node is prepared as a voter again:
   * the engine gives every add a new member identity, so the replica of an earlier add can never take
   * part in this one (the multi-raft engine). False when the existing replica simply rejoins.
   */
  default boolean replacesReplicaOnPrepare() {
    return false;
  }

  /** Removes the meta group here with its storage and forgets its voters; a no-op when it does not run. */
  void destroy() throws IOException;

  /** True when the meta group runs here but the engine closed it on its own (it serves nothing). */
  boolean closedByEngine();
}
