package dev.rangekv.server.consensus;

import java.util.List;

/**
 * What this node's replicas of range groups report as it happens, for the parts of the node that would
 * otherwise poll each range: this replica became its range's leader, stopped leading, or applied a
 * configuration. Registered on the engine with {@link RangeConsensus#addListener}.
 *
 * <p>Per range and node, {@link #becameLeader} and {@link #lostLeadership} alternate, starting with a
 * became; a replica closed or destroyed while it leads reports a loss. A listener added late first hears
 * a became for each range this node leads at that moment, then every later event, so it never needs to
 * poll to catch up. Calls come on the engine's own threads, one at a time: a listener returns quickly,
 * never blocks and never calls back into the engine.
 */
public interface GroupEvents {
  /** This node's replica of {@code rangeId} leads its group now (it may not take writes before it is ready). */
  default void becameLeader(long rangeId) {}

  /**
   * This node's replica of {@code rangeId} no longer leads (it stepped down, lost an election, or its group
   * was closed or destroyed here); {@code leaderHint} names the new leader when known, empty otherwise.
   */
  default void lostLeadership(long rangeId, String leaderHint) {}

  /**
   * This node's replica of {@code rangeId} applied a configuration: {@code members} vote now and, during a
   * joint change, {@code previousMembers} too (empty otherwise). An engine may report the current
   * configuration again (a new leader's first entry, a replica catching up), so listeners compare.
   */
  default void configurationApplied(long rangeId, List<Member> members, List<Member> previousMembers) {}
}
