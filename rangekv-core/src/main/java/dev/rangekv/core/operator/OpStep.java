package dev.rangekv.core.operator;

import dev.rangekv.core.cluster.SplitCause;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.Objects;
import java.util.Optional;

/**
 * One step of an {@link Operator}: data naming one admin call on the range's leader, and a pure check
 * over what heartbeats report (the range's descriptor and leader) telling whether the step's effect is
 * visible. A step whose effect is already visible is skipped, so a retried or re-planned operator never
 * repeats a finished change.
 */
public sealed interface OpStep {
  /** Whether the step's effect shows in {@code reported} led by {@code leader} (empty when unknown). */
  boolean isFinished(RangeDescriptor reported, String leader);

  /**
   * Whether the step copies data (an added replica receives a span snapshot): such steps get the slow
   * step timeout.
   */
  default boolean slow() {
    return false;
  }

  /** Short text for events and logs, e.g. {@code "add replica on n4"}. */
  String describe();

  /**
   * Add a replica on {@code nodeId}: the node joins as a learner, receives a span snapshot and the log,
   * then is promoted to voter (the node's AddReplica call does all three). Finished when the reported
   * replicas include the node.
   */
  record AddReplica(String nodeId) implements OpStep {
    public AddReplica {
      Objects.requireNonNull(nodeId, "nodeId");
    }

    @Override
    public boolean isFinished(RangeDescriptor reported, String leader) {
      return reported.replicas().contains(nodeId);
    }

    @Override
    public boolean slow() {
      return true;
    }

    @Override
    public String describe() {
      return "add replica on " + nodeId;
    }
  }

  /**
   * Swap the replica on {@code fromNode} for a new one on {@code toNode} in one Raft configuration
   * change (joint consensus), so the range keeps its voter count throughout: the new replica is prepared
   * from a span snapshot and caught up before it votes (it counts towards no majority until then),
   * and only then do old and new voter sets switch, each needing its own majority meanwhile. An
   * add-then-remove passes through one more voter, and losing a zone that holds two of four voters
   * leaves no majority and no leader to repair it (CockroachDB replaces replicas through joint
   * configurations for the same reason). Never sent to {@code fromNode}'s replica when it leads: a
   * leader cannot record a change that removes itself, so a {@link TransferLeaderAway} comes first and
   * the node refuses a replace of itself with a retryable error. Finished when the reported replicas
   * include {@code toNode} and not {@code fromNode}.
   */
  record ReplaceReplica(String fromNode, String toNode) implements OpStep {
    public ReplaceReplica {
      Objects.requireNonNull(fromNode, "fromNode");
      Objects.requireNonNull(toNode, "toNode");
      if (fromNode.equals(toNode)) {
        throw new IllegalArgumentException("replace of a replica by itself on " + toNode);
      }
    }

    @Override
    public boolean isFinished(RangeDescriptor reported, String leader) {
      return reported.replicas().contains(toNode) && !reported.replicas().contains(fromNode);
    }

    @Override
    public boolean slow() {
      return true;
    }

    @Override
    public String describe() {
      return "replace replica on " + fromNode + " with " + toNode;
    }
  }

  /** Remove the replica on {@code nodeId} (never the leader's). Finished when it is no longer listed. */
  record RemoveReplica(String nodeId) implements OpStep {
    public RemoveReplica {
      Objects.requireNonNull(nodeId, "nodeId");
    }

    @Override
    public boolean isFinished(RangeDescriptor reported, String leader) {
      return !reported.replicas().contains(nodeId);
    }

    @Override
    public String describe() {
      return "remove replica on " + nodeId;
    }
  }

  /** Move leadership to the replica on {@code toNode}. Finished when {@code toNode} is reported leading. */
  record TransferLeader(String fromNode, String toNode) implements OpStep {
    public TransferLeader {
      Objects.requireNonNull(fromNode, "fromNode");
      Objects.requireNonNull(toNode, "toNode");
    }

    @Override
    public boolean isFinished(RangeDescriptor reported, String leader) {
      return leader.equals(toNode);
    }

    @Override
    public String describe() {
      return "transfer leader " + fromNode + " -> " + toNode;
    }
  }

  /**
   * Move leadership off {@code fromNode} (before its replica is removed), to {@code heir} when it is a
   * replica then. Finished as soon as a known leader is not {@code fromNode}, whoever it is.
   */
  record TransferLeaderAway(String fromNode, String heir) implements OpStep {
    public TransferLeaderAway {
      Objects.requireNonNull(fromNode, "fromNode");
      Objects.requireNonNull(heir, "heir");
    }

    @Override
    public boolean isFinished(RangeDescriptor reported, String leader) {
      return !leader.isEmpty() && !leader.equals(fromNode);
    }

    @Override
    public String describe() {
      return "transfer leader off " + fromNode;
    }
  }

  /**
   * Split at {@code key}, or at the store's byte midpoint when empty. The range keeps its id and the
   * left half; finished when its end is no longer {@code originalEnd} at a generation above {@code
   * generation} (the generation it was planned at). {@code cause} is why it splits (kept in the split's event).
   * With {@code childDormant} the new right half is born dormant: no replica opens its Raft group until
   * something needs it (a pre-split's children, docs/architecture.md, "Life of a split").
   */
  record SplitAt(Optional<Key> key, RangeEnd originalEnd, long generation, SplitCause cause, boolean childDormant)
      implements OpStep {
    public SplitAt {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(originalEnd, "originalEnd");
      Objects.requireNonNull(cause, "cause");
    }

    /** A split whose child is born awake (its group opened on every replica at once). */
    public SplitAt(Optional<Key> key, RangeEnd originalEnd, long generation, SplitCause cause) {
      this(key, originalEnd, generation, cause, false);
    }

    @Override
    public boolean isFinished(RangeDescriptor reported, String leader) {
      if (key.isPresent()) {
        return reported.end().equals(RangeEnd.at(key.get()));
      }
      return reported.generation() > generation && !reported.end().equals(originalEnd);
    }

    @Override
    public String describe() {
      return "split at " + key.map(Key::toString).orElse("the store's midpoint");
    }
  }

  /**
   * Merge with the right neighbour {@code rightRangeId} (at {@code rightGeneration}, on the same
   * replicas): the left's leader freezes the right range, then one command in the left takes over its
   * span. Finished when the (left) range reaches {@code mergedEnd}, the right's old end.
   */
  record Merge(long rightRangeId, long rightGeneration, RangeEnd mergedEnd) implements OpStep {
    public Merge {
      Objects.requireNonNull(mergedEnd, "mergedEnd");
    }

    @Override
    public boolean isFinished(RangeDescriptor reported, String leader) {
      return reported.end().equals(mergedEnd);
    }

    @Override
    public String describe() {
      return "merge with r" + rightRangeId;
    }
  }
}
