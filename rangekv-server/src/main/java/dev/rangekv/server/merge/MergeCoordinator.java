package dev.rangekv.server.merge;

import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.admin.MergeRangesRequest;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.DropReplicaRequest;
import dev.rangekv.proto.replica.FreezeCommand;
import dev.rangekv.proto.replica.FreezeRangeRequest;
import dev.rangekv.proto.replica.MergeCommand;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.server.move.AsyncSteps;
import dev.rangekv.server.move.LeaderContext;
import dev.rangekv.server.move.LocalReplicas;
import dev.rangekv.server.move.MoveOptions;
import dev.rangekv.server.consensus.GroupStatus;
import dev.rangekv.server.consensus.Leadership;
import dev.rangekv.server.consensus.RangeConsensus;
import dev.rangekv.server.raft.RaftGateway;
import dev.rangekv.server.replica.RangeKvException;
import dev.rangekv.server.replica.RangeReplica;
import dev.rangekv.server.replica.ReplicaDirectory;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a merge on the left range's leader:
 * <ol>
 *   <li>check both ranges have the same stable voting members (the caller co-locates them first);
 *   <li>freeze the right range (a command in its group, proposed on its leader);
 *   <li>wait until every replica of the right applied the freeze: the right's data then sits in every
 *       member's store, inside what will be the left's span (one store per node);
 *   <li>apply the merge in the left group (generation = max + 1);
 *   <li>wait until every left replica applied it, then drop the right group on every member, keeping
 *       its data.
 * </ol>
 * Steps 1–3 abort by unfreezing the right range. Once the merge command may have applied (unknown
 * outcome), the coordinator never unfreezes: it checks the left's descriptor instead. A right range
 * left frozen (e.g. a member down during the drop) refuses every request with RANGE_MOVED naming the
 * merged range, so no key is ever served by two ranges.
 *
 * <p>No thread waits on a merge: its steps are a chain of futures (calls to the other nodes through {@link
 * MergePeers}, the engine's futures, polls re-scheduled after a short pause), with short local stages on
 * the executor of its {@link Scheduling}, which also keeps its time (deadlines, pauses, timeouts).
 */
public final class MergeCoordinator {
  private static final Logger log = LoggerFactory.getLogger(MergeCoordinator.class);
  /** How often the waits of steps 2, 3 and 5 look again. */
  private static final long POLL_MILLIS = 20;
  /** How long one freeze proposal may take before it is tried again. */
  private static final Duration FREEZE_TIMEOUT = Duration.ofSeconds(15);

  private final RangeConsensus consensus;
  private final RaftGateway gateway;
  private final ReplicaDirectory directory;
  private final LocalReplicas local;
  private final MergePeers peers;
  private final Scheduling scheduling;
  private final Executor executor;
  private final MoveOptions options;

  public MergeCoordinator(RangeConsensus consensus, RaftGateway gateway, ReplicaDirectory directory, LocalReplicas local,
      MergePeers peers, Scheduling scheduling, MoveOptions options) {
    this.consensus = consensus;
    this.gateway = gateway;
    this.directory = directory;
    this.local = local;
    this.peers = peers;
    this.scheduling = scheduling;
    this.executor = scheduling.executor();
    this.options = options;
  }

  /** Merges the request's range with its right neighbour; completes with the merged descriptor. */
  public CompletableFuture<RangeDescriptorProto> merge(MergeRangesRequest request) {
    return CompletableFuture.supplyAsync(() -> check(request), executor)
        .thenComposeAsync(c -> mergeChecked(request, c), executor);
  }

  /** What step 1 found: the left as its leader sees it, the right's descriptor and the common members. */
  private record Checked(LeaderContext left, RangeDescriptor right, Set<String> members) {}

  private Checked check(MergeRangesRequest request) {
    LeaderContext left = LeaderContext.of(consensus, gateway, directory, request.getHeader());
    RangeHeader rightHeader = request.getRight();
    RangeReplica rightReplica = directory.replica(rightHeader.getRangeId())
        .orElseThrow(() -> refuse("the right range " + rightHeader.getRangeId() + " has no replica on the left's leader"));
    RangeDescriptor right = rightReplica.descriptor()
        .orElseThrow(() -> refuse("the right range is not ready on this node"));
    if (right.generation() != rightHeader.getGeneration()) {
      throw new RangeKvException(RangeKvErrors.rangeMoved(directory.movedDescriptors(right),
          "right range generation " + rightHeader.getGeneration() + " is not current " + right));
    }
    if (left.descriptor().end().isInfinite() || !left.descriptor().end().key().equals(right.start())) {
      throw refuse(right + " is not the right neighbour of " + left.descriptor());
    }
    Set<String> members = left.peerIds();
    Set<String> rightMembers = members(rightHeader.getRangeId());
    if (!members.equals(rightMembers)) {
      throw refuse("replica sets differ: left " + members + " right " + rightMembers);
    }
    return new Checked(left, right, members);
  }

  private CompletableFuture<RangeDescriptorProto> mergeChecked(MergeRangesRequest request, Checked c) {
    RangeHeader rightHeader = request.getRight();
    long t0 = scheduling.nanoTime().getAsLong();
    CompletableFuture<Long> frozen = freeze(rightHeader, true, c.left().rangeId(),
        scheduling.deadline(options.applyWaitTimeout()), null);
    CompletableFuture<Void> everywhere = frozen.thenComposeAsync(index -> awaitApplied(rightHeader.getRangeId(),
        c.members(), index).handleAsync((v, e) -> {
          if (e == null) {
            return CompletableFuture.<Void>completedFuture(null);
          }
          return unfreeze(rightHeader).<Void>thenApply(x -> {
            throw asRangeKv(e);
          });
        }, executor).thenCompose(f -> f), executor);
    RangeCommand cmd = RangeCommand.newBuilder().setHeader(request.getHeader())
        .setMerge(MergeCommand.newBuilder().setRight(directory.toProto(c.right()))).build();
    return everywhere.thenComposeAsync(v -> scheduling.within(gateway.write(cmd), Duration.ofSeconds(30))
        .handleAsync((result, e) -> {
          if (e == null) {
            RangeDescriptorProto merged = result.getRange();
            return finish(rightHeader.getRangeId(), c.members(), c.left().rangeId(), result.getAppliedIndex(), merged)
                .thenApply(x -> {
                  log.info("ranges merged left={} right={} merged={} ms={}", c.left().rangeId(), c.right().rangeId(),
                      merged.getGeneration(), (scheduling.nanoTime().getAsLong() - t0) / 1_000_000);
                  return merged;
                });
          }
          Throwable cause = AsyncSteps.cause(e);
          if (cause instanceof TimeoutException) {
            return CompletableFuture.completedFuture(afterUnknownOutcome(c.left(), c.right(), "timeout"));
          }
          RangeKvError error = cause instanceof RangeKvException rke ? rke.error() : null;
          if (error != null && error.getDefinitelyNotApplied()) {
            return unfreeze(rightHeader).<RangeDescriptorProto>thenApply(x -> {
              throw (RangeKvException) cause;
            });
          }
          return CompletableFuture.completedFuture(afterUnknownOutcome(c.left(), c.right(), String.valueOf(cause)));
        }, executor).thenCompose(f -> f), executor);
  }

  /** The merge may or may not have applied: decide by the left's descriptor, never unfreeze blindly. */
  private RangeDescriptorProto afterUnknownOutcome(LeaderContext left, RangeDescriptor right, String why) {
    RangeDescriptor now = left.replica().descriptor().orElseThrow();
    if (now.end().equals(right.end())) {
      return directory.movedDescriptors(now).get(0);
    }
    throw new RangeKvException(RangeKvErrors.unavailable(
        "merge outcome unknown (" + why + "); the right range stays frozen until a retry", false));
  }

  /** Step 5; never completes exceptionally (a right range left frozen refuses requests, see above). */
  private CompletableFuture<Void> finish(long rightId, Set<String> members, long leftId, long mergeIndex,
      RangeDescriptorProto merged) {
    return awaitApplied(leftId, members, mergeIndex).handleAsync((v, e) -> {
      if (e != null) {
        log.warn("merge applied but not yet everywhere; the right range stays frozen rangeId={} error={}", rightId,
            AsyncSteps.cause(e).getMessage());
        return CompletableFuture.<Void>completedFuture(null);
      }
      return CompletableFuture.allOf(members.stream().map(node -> dropOn(node, rightId, merged))
          .toArray(CompletableFuture<?>[]::new));
    }, executor).thenCompose(f -> f);
  }

  /** Drops the merged-away right range on {@code node}, keeping its data; best effort, never fails. */
  private CompletableFuture<Void> dropOn(String node, long rightId, RangeDescriptorProto merged) {
    if (node.equals(local.self().getNodeId())) {
      return CompletableFuture.runAsync(() -> {
        try {
          local.drop(rightId, true, List.of(merged));
        } catch (IOException | RuntimeException e) {
          log.warn("dropping merged range failed rangeId={} node={} error={}", rightId, node, e.toString());
        }
      }, executor);
    }
    DropReplicaRequest drop = DropReplicaRequest.newBuilder().setRangeId(rightId).setKeepData(true)
        .addSuccessors(merged).build();
    return peers.drop(node, drop).handleAsync((r, e) -> {
      if (e != null) {
        log.warn("dropping merged range failed rangeId={} node={} error={}", rightId, node,
            AsyncSteps.cause(e).toString());
      }
      return null;
    }, executor);
  }

  private Set<String> members(long rangeId) {
    GroupStatus d = consensus.status(rangeId).orElseThrow(() -> refuse("the right range has no group on this node"));
    if (d.changing()) {
      throw refuse("the right range is changing its configuration");
    }
    return new TreeSet<>(d.memberIds());
  }

  /**
   * Proposes a freeze or unfreeze on the right range's leader, following leader hints, until {@code
   * deadlineNanos}; completes with its log index. RANGE_MOVED ends it at once; other failures are
   * tried again after a pause ({@code last} is the latest of them).
   */
  private CompletableFuture<Long> freeze(RangeHeader header, boolean frozen, long mergeInto, long deadlineNanos,
      RangeKvException last) {
    if (scheduling.passed(deadlineNanos)) {
      return CompletableFuture.failedFuture(last != null ? last
          : new RangeKvException(RangeKvErrors.unavailable("no leader for the freeze", true)));
    }
    String leader = leaderOf(header.getRangeId());
    CompletableFuture<Long> attempt;
    if (leader.equals(local.self().getNodeId())) {
      RangeCommand cmd = RangeCommand.newBuilder().setHeader(header)
          .setFreeze(FreezeCommand.newBuilder().setFrozen(frozen).setMergeInto(mergeInto)).build();
      attempt = scheduling.within(gateway.write(cmd), FREEZE_TIMEOUT).thenApply(CommandResult::getAppliedIndex);
    } else if (!leader.isEmpty()) {
      attempt = scheduling.within(peers.freeze(leader,
          FreezeRangeRequest.newBuilder().setHeader(header).setFrozen(frozen).setMergeInto(mergeInto).build()),
          FREEZE_TIMEOUT);
    } else {
      attempt = null;
    }
    if (attempt == null) {
      return later(() -> freeze(header, frozen, mergeInto, deadlineNanos, last));
    }
    return attempt.handleAsync((index, e) -> {
      if (e == null) {
        return CompletableFuture.completedFuture(index);
      }
      Throwable c = AsyncSteps.cause(e);
      Optional<RangeKvError> typed = c instanceof RangeKvException rke ? Optional.of(rke.error())
          : c instanceof StatusRuntimeException ? RangeKvErrors.fromThrowable(c) : Optional.empty();
      if (typed.isPresent() && typed.get().hasRangeMoved()) {
        return CompletableFuture.<Long>failedFuture(c instanceof RangeKvException ? c : new RangeKvException(typed.get()));
      }
      RangeKvException failure = new RangeKvException(RangeKvErrors.unavailable(
          c instanceof TimeoutException ? "freeze timed out" : "freeze failed: " + c, false));
      return later(() -> freeze(header, frozen, mergeInto, deadlineNanos, failure));
    }, executor).thenCompose(f -> f);
  }

  /** Unfreezes the right range; never completes exceptionally (a failure is logged). */
  private CompletableFuture<Void> unfreeze(RangeHeader header) {
    return freeze(header, false, 0, scheduling.deadline(options.applyWaitTimeout()), null)
        .handleAsync((index, e) -> {
          if (e != null) {
            log.warn("unfreeze failed rangeId={} error={}", header.getRangeId(), AsyncSteps.cause(e).getMessage());
          }
          return null;
        }, executor);
  }

  private String leaderOf(long rangeId) {
    return consensus.leadership(rangeId).map(Leadership::leaderId).orElse("");
  }

  /** Completes when every member applied {@code index} of {@code rangeId}; UNAVAILABLE when one does not in time. */
  private CompletableFuture<Void> awaitApplied(long rangeId, Set<String> members, long index) {
    return awaitApplied(rangeId, new TreeSet<>(members), index, scheduling.deadline(options.applyWaitTimeout()));
  }

  private CompletableFuture<Void> awaitApplied(long rangeId, Set<String> waiting, long index, long deadlineNanos) {
    List<String> nodes = List.copyOf(waiting);
    List<CompletableFuture<Long>> applied = nodes.stream().map(n -> appliedIndex(n, rangeId)).toList();
    return CompletableFuture.allOf(applied.toArray(CompletableFuture<?>[]::new)).thenComposeAsync(v -> {
      Set<String> still = new TreeSet<>();
      for (int i = 0; i < nodes.size(); i++) {
        if (applied.get(i).getNow(-1L) < index) { // all complete: allOf finished
          still.add(nodes.get(i));
        }
      }
      if (still.isEmpty()) {
        return CompletableFuture.<Void>completedFuture(null);
      }
      if (scheduling.passed(deadlineNanos)) {
        return CompletableFuture.<Void>failedFuture(new RangeKvException(RangeKvErrors.unavailable(
            "merge aborted: replicas " + still + " of range " + rangeId + " did not apply index " + index, true)));
      }
      return later(() -> awaitApplied(rangeId, still, index, deadlineNanos));
    }, executor);
  }

  /** The applied index of {@code rangeId} on {@code node}; -1 when unknown. Never completes exceptionally. */
  private CompletableFuture<Long> appliedIndex(String node, long rangeId) {
    if (node.equals(local.self().getNodeId())) {
      return CompletableFuture.completedFuture(consensus.status(rangeId).map(GroupStatus::appliedIndex).orElse(-1L));
    }
    return peers.appliedIndex(node, rangeId);
  }

  /** {@code next} after a short pause, on the executor: a poll that holds no thread while it waits. */
  private <T> CompletableFuture<T> later(java.util.function.Supplier<CompletableFuture<T>> next) {
    return scheduling.later(POLL_MILLIS, next);
  }

  private static RangeKvException asRangeKv(Throwable e) {
    Throwable c = AsyncSteps.cause(e);
    return c instanceof RangeKvException rke ? rke
        : new RangeKvException(RangeKvErrors.unavailable("merge failed: " + c, false));
  }

  private static RangeKvException refuse(String reason) {
    return new RangeKvException(RangeKvErrors.invalidArgument("merge", reason));
  }
}
