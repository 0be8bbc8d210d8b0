package dev.rangekv.server.multiraft;

import io.microraft.RaftNode;
import io.microraft.report.RaftNodeReport;

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

  Group(long rangeId, Stripe stripe, GroupLog log, RangeMachine machine) {
    this.rangeId = rangeId;
    this.stripe = stripe;
    this.log = log;
    this.machine = machine;
  }
}
