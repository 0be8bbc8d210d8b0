package dev.rangekv.server.node;

import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.server.replica.DormancyRecord;
import dev.rangekv.server.consensus.Member;
import dev.rangekv.server.consensus.RangeConsensus;
import dev.rangekv.server.replica.ReplicaDirectory;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.RangeLocalState;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the Raft groups this node runs match the range records in its store. Creating a split child's
 * group happens outside the parent's atomic apply and can be lost (crash, failure), so besides the
 * prompt creation after each split, every record naming this node is reconciled at start and then
 * periodically. All group adds run on one executor thread, so
 * they never block a group's apply thread. Adding an existing group counts as success.
 */
final class GroupReconciler {
  private static final Logger log = LoggerFactory.getLogger(GroupReconciler.class);

  private final String nodeId;
  private final RangeConsensus consensus;
  private final NodeStore store;
  private final ReplicaDirectory directory;
  private final ScheduledExecutorService executor;

  GroupReconciler(String nodeId, RangeConsensus consensus, NodeStore store, ReplicaDirectory directory,
      ScheduledExecutorService executor) {
    this.nodeId = nodeId;
    this.consensus = consensus;
    this.store = store;
    this.directory = directory;
    this.executor = executor;
  }

  /** Reconciles now and then every {@code periodMillis}. */
  void start(long periodMillis) {
    executor.scheduleWithFixedDelay(this::reconcileAll, 0, periodMillis, TimeUnit.MILLISECONDS);
  }

  /**
   * Creates {@code rangeId}'s group soon if this node should run it and does not. Called from a state
   * machine's apply (a split), which must never throw: once the node is closing the executor refuses the
   * task, and the next start's reconcile creates the group instead.
   */
  void ensure(long rangeId) {
    try {
      executor.execute(() -> ensureNow(rangeId, 0));
    } catch (RejectedExecutionException e) {
      log.info("node closing: group left to the next start's reconcile rangeId={} nodeId={}", rangeId, nodeId);
    }
  }

  private void reconcileAll() {
    try {
      Set<Long> running = consensus.openRanges();
      for (RangeLocalState s : store.allRangeStates()) {
        if (!running.contains(s.rangeId()) && s.descriptor().replicas().contains(nodeId)
            && DormancyRecord.dormantAt(store, s.rangeId()).isEmpty()) {
          log.info("reconcile adds missing group rangeId={}", s.rangeId());
          ensureNow(s.rangeId(), 0);
        }
      }
    } catch (RuntimeException e) {
      log.warn("reconcile failed error={}", e.toString(), e);
    }
  }

  private void ensureNow(long rangeId, int attempt) {
    if (directory.isGivenUp(rangeId)) {
      return; // moved away or merged: its record is being deleted
    }
    if (DormancyRecord.dormantAt(store, rangeId).isPresent()) {
      return; // dormant: closed on purpose, reopened by a wake
    }
    if (consensus.isOpen(rangeId)) {
      return;
    }
    List<RaftReplica> replicas = directory.replicaRecord(rangeId);
    if (replicas.stream().noneMatch(r -> r.getNodeId().equals(nodeId))) {
      return;
    }
    try {
      if (consensus.create(rangeId, Member.of(replicas))) {
        log.info("range group added rangeId={} peers={}", rangeId, replicas.size());
      }
    } catch (IOException | RuntimeException e) {
      retry(rangeId, attempt, e.toString());
    }
  }

  private void retry(long rangeId, int attempt, String error) {
    if (executor.isShutdown()) {
      return;
    }
    log.warn("range group add failed, retrying rangeId={} attempt={} error={}", rangeId, attempt, error);
    long delay = Math.min(5_000, 100L << Math.min(attempt, 6));
    executor.schedule(() -> ensureNow(rangeId, attempt + 1), delay, TimeUnit.MILLISECONDS);
  }
}
