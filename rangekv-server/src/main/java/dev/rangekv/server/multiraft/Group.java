package dev.rangekv.server.multiraft;

import dev.rangekv.server.consensus.Member;
import io.microraft.RaftNode;
import io.microraft.report.RaftNodeReport;
import java.util.List;

/**
 * This node's replica of one range group: the MicroRaft node, its log, its state machine and the stripe
 * it is pinned to, and the last report MicroRaft published for it (for status pages and decisions).
 */
final class Group {
  final long rangeId;
  final Stripe stripe;
  final GroupLog log;
  final RangeMachine machine;
  RaftNode node;
  volatile RaftNodeReport report;
  /**
   * A leadership transfer is under way: new proposals are refused (retryable) so the log drains, as
   * MicroRaft hands leadership over only when every appended entry is committed.
   */
  volatile boolean transferring;
  /**
   * While this replica, leading, changes the members one at a time: the voters before the first step
   * (reported as the configuration being left, {@code GroupStatus.previousMembers}); empty otherwise.
   */
  volatile List<Member> changingFrom = List.of();

  Group(long rangeId, Stripe stripe, GroupLog log, RangeMachine machine) {
    this.rangeId = rangeId;
    this.stripe = stripe;
    this.log = log;
    this.machine = machine;
  }
}
