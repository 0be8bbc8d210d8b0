package dev.rangekv.server.multiraft;

import dev.rangekv.server.consensus.Member;
import io.microraft.RaftNode;
import io.microraft.report.RaftNodeReport;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * This node's replica of one range group: the MicroRaft node, its log, its state machine and the stripe
 * it is pinned to, and the last report MicroRaft published for it (for status pages and decisions).
 */
final class Group {
  final long rangeId;
  final Stripe stripe;
  final GroupLog log;
  /** Null in the meta range's group, whose machine is a {@link MetaMachine} ({@link MultiRaftMetaConsensus}). */
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

  // ---- quiescence: written by the group's stripe thread only ({@link Quiescence}) ----
  /** Quiesced: it sends no heartbeats and runs no periodic task until something wakes it (read by counts). */
  volatile boolean quiet;
  /**
   * Which quiet period this is: a fresh number of the node's at every quiesce (set before {@link #quiet}),
   * so a reader that saw the same number twice knows the group stayed quiet in between.
   */
  volatile long quietPeriod;
  /** Quiesced as a follower: the node of the leader it relies on (watched through {@link NodeLiveness}). */
  String quietLeader;
  /** MicroRaft's periodic tasks of this group, kept so a wake can schedule them again. */
  Runnable heartbeatTask;
  Runnable reportTask;
  /** The periodic tasks that came due while quiet ({@link Quiescence#HEARTBEAT}, {@link Quiescence#REPORT}). */
  int held;
  /** Leading: the last log index and term a heartbeat tick found calm at, and how many ticks in a row. */
  long calmIndex = -1;
  int calmTerm;
  int calmTicks;
  long lastTickMillis;

  Group(long rangeId, Stripe stripe, GroupLog log, RangeMachine machine) {
    this.rangeId = rangeId;
    this.stripe = stripe;
    this.log = log;
    this.machine = machine;
  }

  /** Stops the node and waits until the stripe wrote everything it had for it (its storage is then final). */
  void stopAndDrain() throws InterruptedException, ExecutionException, TimeoutException {
    node.terminate().get(10, TimeUnit.SECONDS);
    CompletableFuture<Void> drained = new CompletableFuture<>();
    stripe.submit(() -> stripe.afterThisCycle(log, () -> drained.complete(null)));
    drained.get(10, TimeUnit.SECONDS);
  }
}
