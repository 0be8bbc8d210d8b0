package dev.rangekv.server.raft;

import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.QueryResult;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.proto.replica.RangeQuery;
import dev.rangekv.server.consensus.ConsensusException;
import dev.rangekv.server.consensus.Leadership;
import dev.rangekv.server.consensus.RangeConsensus;
import dev.rangekv.server.replica.RangeKvException;
import dev.rangekv.server.replica.RangeReplica;
import dev.rangekv.server.replica.ReplicaDirectory;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Submits range commands and queries to the local replica of a range through the consensus engine,
 * only when it leads (followers refuse with a leader hint), after the leader's admission check; maps
 * every outcome to a result or a typed {@link RangeKvException}. Failed futures always carry a {@link
 * RangeKvException}.
 */
public final class RaftGateway {
  private final RangeConsensus consensus;
  private final ReplicaDirectory directory;
  // rangeId -> the node this node is handing leadership to: while the leader refuses writes as
  // "stepping down" and knows no other leader yet, the refusal names the transfer's target so clients
  // go there
  private final Map<Long, String> transfers = new ConcurrentHashMap<>();

  public RaftGateway(RangeConsensus consensus, ReplicaDirectory directory) {
    this.consensus = consensus;
    this.directory = directory;
  }

  /**
   * A node-originated command (a split, a freeze, a replica change) under the node's own client id,
   * after the leader's admission check; fails with the refusal an applied command answered.
   */
  public CompletableFuture<CommandResult> write(RangeCommand cmd) {
    long rangeId = cmd.getHeader().getRangeId();
    Optional<RangeKvError> refused = leaderOrRefusal(rangeId);
    RangeReplica replica = directory.replica(rangeId).orElse(null);
    if (refused.isEmpty() && replica != null) {
      refused = replica.admit(cmd);
    }
    if (refused.isPresent()) {
      return CompletableFuture.failedFuture(new RangeKvException(refused.get()));
    }
    return propose(rangeId, cmd).thenApply(result -> {
      if (result.hasError()) {
        throw new RangeKvException(result.getError());
      }
      return result;
    });
  }

  /** Why a client write for {@code write}'s range must not join a proposal here, if it must not. */
  public Optional<RangeKvError> admit(dev.rangekv.proto.BatchRequest write) {
    long rangeId = write.getHeader().getRangeId();
    Optional<RangeKvError> refused = leaderOrRefusal(rangeId);
    if (refused.isPresent()) {
      return refused;
    }
    return directory.replica(rangeId).map(r -> r.admit(write)).orElseGet(() -> leaderOrRefusal(rangeId));
  }

  /**
   * Proposes {@code cmd} to the range's group as it is (no admission check): the applied result, which
   * may be a refusal. Fails with a {@link RangeKvException} when the proposal did not complete.
   */
  public CompletableFuture<CommandResult> propose(long rangeId, RangeCommand cmd) {
    if (!cmd.hasWrites()) {
      return typed(rangeId, consensus.propose(rangeId, cmd));
    }
    // client writes: should this leader step down before they apply, it hands them over (HandOver)
    long termBefore = currentTerm(rangeId);
    CompletableFuture<CommandResult> proposed = consensus.propose(rangeId, cmd);
    // the entry's term lies between the two reads; only when they agree is it known, and a hand-over
    // keyed on a term older than the entry's could call a write that may still commit "not applied"
    long term = currentTerm(rangeId) == termBefore ? termBefore : -1L;
    return proposed.handle((result, error) -> {
      if (error == null) {
        return CompletableFuture.completedFuture(result);
      }
      Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
      Optional<RangeReplica> replica = directory.replica(rangeId);
      if (term < 0 || replica.isEmpty() || !(e instanceof ConsensusException ce)
          || ce.kind() != ConsensusException.Kind.NOT_LEADER || ce.definitelyNotApplied()) {
        return CompletableFuture.<CommandResult>failedFuture(new RangeKvException(failure(error, rangeId)));
      }
      return HandOver.settle(replica.get(), term, cmd.getWrites()).thenApply(outcome -> {
        if (outcome instanceof HandOver.Outcome.Applied a) {
          return a.result();
        }
        throw new RangeKvException(outcome instanceof HandOver.Outcome.NotApplied
            ? notLeader(rangeId, currentLeader(rangeId), true) : failure(error, rangeId));
      });
    }).thenCompose(f -> f);
  }

  private long currentTerm(long rangeId) {
    return consensus.currentTerm(rangeId).orElse(-1L);
  }

  private String currentLeader(long rangeId) {
    return consensus.leadership(rangeId).map(Leadership::leaderId).orElse("");
  }

  /** A linearizable read: the engine confirms leadership (lease or read index) before the query runs. */
  public CompletableFuture<QueryResult> read(RangeQuery query) {
    long rangeId = query.getHeader().getRangeId();
    Optional<RangeKvError> refused = leaderOrRefusal(rangeId);
    if (refused.isPresent()) {
      return CompletableFuture.failedFuture(new RangeKvException(refused.get()));
    }
    return typed(rangeId, consensus.read(rangeId, query)).thenApply(result -> {
      if (result.hasError()) {
        throw new RangeKvException(result.getError());
      }
      return result;
    });
  }

  /** {@code f}, failing with a {@link RangeKvException} for every failure of the engine. */
  private <T> CompletableFuture<T> typed(long rangeId, CompletableFuture<T> f) {
    return f.handle((v, error) -> {
      if (error != null) {
        throw new RangeKvException(failure(error, rangeId));
      }
      return v;
    });
  }

  /**
   * Records that this node is transferring the leadership of {@code rangeId} to {@code target} (until
   * {@link #transferEnded}): refusals meanwhile carry the target as the leader hint.
   */
  public void transferStarted(long rangeId, String target) {
    transfers.put(rangeId, target);
  }

  /** True while this node hands the leadership of {@code rangeId} to another node. */
  public boolean transferring(long rangeId) {
    return transfers.containsKey(rangeId);
  }

  /** Ends what {@link #transferStarted} recorded. */
  public void transferEnded(long rangeId) {
    transfers.remove(rangeId);
  }

  private volatile java.util.function.LongPredicate wakeIfDormant = rangeId -> false;

  /**
   * How to start waking a range this node holds dormant: returns true when it was dormant here and a
   * wake started. Requests that reach a dormant range without waiting for its wake then get a
   * retryable UNAVAILABLE instead of RANGE_NOT_FOUND.
   */
  public void onDormant(java.util.function.LongPredicate wakeIfDormant) {
    this.wakeIfDormant = wakeIfDormant;
  }

  /** Empty when this node holds {@code rangeId} and its division believes it leads. */
  public Optional<RangeKvError> leaderOrRefusal(long rangeId) {
    if (directory.replica(rangeId).isEmpty() && wakeIfDormant.test(rangeId)) {
      return Optional.of(RangeKvErrors.unavailable("range " + rangeId + " is dormant and waking", true));
    }
    if (directory.replica(rangeId).isEmpty()) {
      List<dev.rangekv.proto.RangeDescriptorProto> current = directory.successorsOf(rangeId);
      return Optional.of(current.isEmpty()
          ? RangeKvErrors.rangeNotFound(rangeId)
          : RangeKvErrors.rangeMoved(current, "range " + rangeId + " no longer lives on this node"));
    }
    Optional<Leadership> leadership = consensus.leadership(rangeId);
    if (leadership.isEmpty()) {
      return Optional.of(RangeKvErrors.rangeNotFound(rangeId));
    }
    if (leadership.get().leader()) {
      return Optional.empty();
    }
    return Optional.of(notLeader(rangeId, leadership.get().leaderId(), true));
  }

  /** Maps an engine failure to the error the caller sees. */
  private RangeKvError failure(Throwable error, long rangeId) {
    Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    if (e instanceof RangeKvException rke) {
      return rke.error();
    }
    if (!(e instanceof ConsensusException ce)) {
      return RangeKvErrors.unavailable("unexpected " + e, false);
    }
    return switch (ce.kind()) {
      case NOT_LEADER -> notLeader(rangeId, ce.leaderHint(), ce.definitelyNotApplied());
      case NO_GROUP -> RangeKvErrors.rangeNotFound(rangeId);
      // refused before it was appended: send the caller to the node taking over
      case STEPPING_DOWN -> transfers.containsKey(rangeId) ? notLeader(rangeId, "", true)
          : RangeKvErrors.unavailable(ce.getMessage(), true);
      case NOT_READY, TIMED_OUT, FAILED -> RangeKvErrors.unavailable(ce.getMessage(), ce.definitelyNotApplied());
    };
  }

  /** NOT_LEADER naming {@code leader}, or the target of a transfer in progress when no leader is known. */
  private RangeKvError notLeader(long rangeId, String leader, boolean safe) {
    String hint = leader.isEmpty() || leader.equals(consensus.selfId())
        ? transfers.getOrDefault(rangeId, leader) : leader;
    return RangeKvErrors.notLeader(rangeId, hint, hint.isEmpty() ? "" : directory.addressOf(hint), safe);
  }
}
