package dev.rangekv.server.merge;

import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.KvServiceGrpc;
import dev.rangekv.proto.ListRangesRequest;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.ReplicaStatus;
import dev.rangekv.proto.admin.MergeRangesRequest;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.DropReplicaRequest;
import dev.rangekv.proto.replica.FreezeCommand;
import dev.rangekv.proto.replica.FreezeRangeRequest;
import dev.rangekv.proto.replica.MergeCommand;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.server.move.LeaderContext;
import dev.rangekv.server.move.LocalReplicas;
import dev.rangekv.server.move.MoveOptions;
import dev.rangekv.server.replica.RangeGroups;
import dev.rangekv.server.replica.RangeKvException;
import dev.rangekv.server.replica.RangeStateMachine;
import dev.rangekv.server.replica.ReplicaDirectory;
import dev.rangekv.server.rpc.NodeChannels;
import dev.rangekv.server.rpc.RaftGateway;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.ratis.server.RaftServer;
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
 */
public final class MergeCoordinator {
  private static final Logger log = LoggerFactory.getLogger(MergeCoordinator.class);

  private final RaftServer server;
  private final RaftGateway gateway;
  private final ReplicaDirectory directory;
  private final NodeChannels channels;
  private final LocalReplicas local;
  private final Executor executor;
  private final MoveOptions options;

  public MergeCoordinator(RaftServer server, RaftGateway gateway, ReplicaDirectory directory, NodeChannels channels,
      LocalReplicas local, Executor executor, MoveOptions options) {
    this.server = server;
    this.gateway = gateway;
    this.directory = directory;
    this.channels = channels;
    this.local = local;
    this.executor = executor;
    this.options = options;
  }

  public CompletableFuture<RangeDescriptorProto> merge(MergeRangesRequest request) {
    return CompletableFuture.supplyAsync(() -> mergeNow(request), executor);
  }

  private RangeDescriptorProto mergeNow(MergeRangesRequest request) {
    LeaderContext left = LeaderContext.of(server, gateway, directory, request.getHeader());
    RangeHeader rightHeader = request.getRight();
    RangeStateMachine rightReplica = directory.replica(rightHeader.getRangeId())
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
    long t0 = System.nanoTime();
    long freezeIndex = freeze(rightHeader, true, left.rangeId());
    try {
      awaitApplied(rightHeader.getRangeId(), members, freezeIndex);
    } catch (RangeKvException e) {
      unfreeze(rightHeader);
      throw e;
    }
    RangeCommand cmd = RangeCommand.newBuilder().setHeader(request.getHeader())
        .setMerge(MergeCommand.newBuilder().setRight(directory.toProto(right))).build();
    CommandResult result;
    try {
      result = gateway.write(cmd).get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      RangeKvError error = e.getCause() instanceof RangeKvException rke ? rke.error() : null;
      if (error != null && error.getDefinitelyNotApplied()) {
        unfreeze(rightHeader);
        throw (RangeKvException) e.getCause();
      }
      return afterUnknownOutcome(left, right, rightHeader, String.valueOf(e.getCause()));
    } catch (TimeoutException e) {
      return afterUnknownOutcome(left, right, rightHeader, "timeout");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RangeKvException(RangeKvErrors.unavailable("interrupted during merge", false));
    }
    RangeDescriptorProto merged = result.getRange();
    finish(rightHeader.getRangeId(), members, left.rangeId(), result.getAppliedIndex(), merged);
    log.info("ranges merged left={} right={} merged={} ms={}", left.rangeId(), right.rangeId(),
        merged.getGeneration(), (System.nanoTime() - t0) / 1_000_000);
    return merged;
  }

  /** The merge may or may not have applied: decide by the left's descriptor, never unfreeze blindly. */
  private RangeDescriptorProto afterUnknownOutcome(LeaderContext left, RangeDescriptor right, RangeHeader rightHeader,
      String why) {
    RangeDescriptor now = left.replica().descriptor().orElseThrow();
    if (now.end().equals(right.end())) {
      return directory.movedDescriptors(now).get(0);
    }
    throw new RangeKvException(RangeKvErrors.unavailable(
        "merge outcome unknown (" + why + "); the right range stays frozen until a retry", false));
  }

  private void finish(long rightId, Set<String> members, long leftId, long mergeIndex, RangeDescriptorProto merged) {
    try {
      awaitApplied(leftId, members, mergeIndex);
    } catch (RangeKvException e) {
      log.warn("merge applied but not yet everywhere; the right range stays frozen rangeId={} error={}", rightId,
          e.getMessage());
      return;
    }
    List<CompletableFuture<Void>> drops = new java.util.ArrayList<>();
    for (String node : members) {
      drops.add(CompletableFuture.runAsync(() -> dropOn(node, rightId, merged), executor));
    }
    drops.forEach(CompletableFuture::join);
  }

  private void dropOn(String node, long rightId, RangeDescriptorProto merged) {
    try {
      if (node.equals(local.self().getNodeId())) {
        local.drop(rightId, true, List.of(merged));
      } else {
        channels.replicaService(directory.addressOf(node), Duration.ofSeconds(15)).dropReplica(DropReplicaRequest
            .newBuilder().setRangeId(rightId).setKeepData(true).addSuccessors(merged).build());
      }
    } catch (IOException | RuntimeException e) {
      log.warn("dropping merged range failed rangeId={} node={} error={}", rightId, node, e.toString());
    }
  }

  private Set<String> members(long rangeId) {
    try {
      RaftServer.Division d = server.getDivision(RangeGroups.groupId(rangeId));
      if (!d.getRaftConf().getPreviousPeers().isEmpty()) {
        throw refuse("the right range is changing its configuration");
      }
      Set<String> ids = new TreeSet<>();
      d.getRaftConf().getCurrentPeers().forEach(p -> ids.add(p.getId().toString()));
      return ids;
    } catch (IOException e) {
      throw refuse("the right range has no group on this node");
    }
  }

  /** Proposes a freeze or unfreeze on the right range's leader, following leader hints; its log index. */
  private long freeze(RangeHeader header, boolean frozen, long mergeInto) {
    long deadline = System.nanoTime() + options.applyWaitTimeout().toNanos();
    RangeKvException last = null;
    while (System.nanoTime() < deadline) {
      String leader = leaderOf(header.getRangeId());
      try {
        if (leader.equals(local.self().getNodeId())) {
          RangeCommand cmd = RangeCommand.newBuilder().setHeader(header)
              .setFreeze(FreezeCommand.newBuilder().setFrozen(frozen).setMergeInto(mergeInto)).build();
          return gateway.write(cmd).get(15, TimeUnit.SECONDS).getAppliedIndex();
        }
        if (!leader.isEmpty()) {
          return channels.replicaService(directory.addressOf(leader), Duration.ofSeconds(15))
              .freezeRange(FreezeRangeRequest.newBuilder().setHeader(header).setFrozen(frozen).setMergeInto(mergeInto)
                  .build())
              .getIndex();
        }
      } catch (ExecutionException e) {
        if (e.getCause() instanceof RangeKvException rke && rke.error().hasRangeMoved()) {
          throw rke;
        }
        last = new RangeKvException(RangeKvErrors.unavailable("freeze failed: " + e.getCause(), false));
      } catch (StatusRuntimeException e) {
        Optional<RangeKvError> typed = RangeKvErrors.fromThrowable(e);
        if (typed.isPresent() && typed.get().hasRangeMoved()) {
          throw new RangeKvException(typed.get());
        }
        last = new RangeKvException(RangeKvErrors.unavailable("freeze failed: " + e, false));
      } catch (TimeoutException e) {
        last = new RangeKvException(RangeKvErrors.unavailable("freeze timed out", false));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new RangeKvException(RangeKvErrors.unavailable("interrupted", false));
      }
      pause();
    }
    throw last != null ? last : new RangeKvException(RangeKvErrors.unavailable("no leader for the freeze", true));
  }

  private void unfreeze(RangeHeader header) {
    try {
      freeze(header, false, 0);
    } catch (RangeKvException e) {
      log.warn("unfreeze failed rangeId={} error={}", header.getRangeId(), e.getMessage());
    }
  }

  private String leaderOf(long rangeId) {
    try {
      RaftServer.Division d = server.getDivision(RangeGroups.groupId(rangeId));
      return d.getInfo().getLeaderId() == null ? "" : d.getInfo().getLeaderId().toString();
    } catch (IOException e) {
      return "";
    }
  }

  /** Waits until every member applied {@code index} of {@code rangeId}; UNAVAILABLE when one does not in time. */
  private void awaitApplied(long rangeId, Set<String> members, long index) {
    long deadline = System.nanoTime() + options.applyWaitTimeout().toNanos();
    Set<String> waiting = new TreeSet<>(members);
    while (true) {
      waiting.removeIf(node -> appliedIndex(node, rangeId) >= index);
      if (waiting.isEmpty()) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new RangeKvException(RangeKvErrors.unavailable(
            "merge aborted: replicas " + waiting + " of range " + rangeId + " did not apply index " + index, true));
      }
      pause();
    }
  }

  private long appliedIndex(String node, long rangeId) {
    if (node.equals(local.self().getNodeId())) {
      try {
        return server.getDivision(RangeGroups.groupId(rangeId)).getInfo().getLastAppliedIndex();
      } catch (IOException e) {
        return -1;
      }
    }
    try {
      for (ReplicaStatus s : KvServiceGrpc.newBlockingStub(channels.channel(directory.addressOf(node)))
          .withDeadlineAfter(2, TimeUnit.SECONDS).listRanges(ListRangesRequest.getDefaultInstance()).getReplicasList()) {
        if (s.getRange().getRangeId() == rangeId) {
          return s.getAppliedIndex();
        }
      }
    } catch (StatusRuntimeException e) {
      log.debug("applied index unknown node={} rangeId={} error={}", node, rangeId, e.toString());
    }
    return -1;
  }

  private static RangeKvException refuse(String reason) {
    return new RangeKvException(RangeKvErrors.invalidArgument("merge", reason));
  }

  private static void pause() {
    try {
      Thread.sleep(20);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RangeKvException(RangeKvErrors.unavailable("interrupted", false));
    }
  }
}
