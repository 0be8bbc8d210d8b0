package dev.rangekv.meta.controller;

import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.core.operator.OpStep;
import dev.rangekv.core.operator.StepTimeouts;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.RangeIdBlock;
import dev.rangekv.meta.state.MalformedMetaCommandException;
import dev.rangekv.meta.state.MetaView;
import dev.rangekv.meta.state.RangeWire;
import dev.rangekv.meta.state.ReportedRange;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.admin.AddReplicaRequest;
import dev.rangekv.proto.admin.MergeRangesRequest;
import dev.rangekv.proto.admin.NodeAdminServiceGrpc;
import dev.rangekv.proto.admin.RemoveReplicaRequest;
import dev.rangekv.proto.admin.SplitRangeRequest;
import dev.rangekv.proto.admin.TransferLeaderRequest;
import dev.rangekv.proto.calls.UnaryCalls;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.ReplicaServiceGrpc;
import dev.rangekv.proto.replica.WakeRangeRequest;
import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends one operator step as one non-blocking node-admin call to the range's leader, as any peer would
 * (gRPC future stubs over the node's channels). The call's answer carries the descriptors the step
 * produced, which the controller reports to the meta range; whether the step finished is still judged
 * from the reports. A step first wakes its range's replicas ({@code WakeRange}): a dormant range must reopen
 * before it can split, move or merge. Thread-safe (holds no state but its channels).
 */
final class StepCalls {
  private static final Logger log = LoggerFactory.getLogger(StepCalls.class);

  /** How long a step waits for a dormant range's replicas to reopen (a node's own wake gives up at 15 s). */
  private static final long WAKE_DEADLINE_MILLIS = 15_000;
  private final Function<String, Channel> channels;
  private final StepTimeouts timeouts;
  private final long moveBytesPerSecond;
  /** Grants one range id per split call: the child's id comes from the meta range, as every range's does. */
  private final Supplier<CompletableFuture<RangeIdBlock>> childIds;

  /**
   * What a step's call answered.
   *
   * @param descriptors the range's (and a split's right half's) descriptors after the step
   * @param leader the leader after a transfer; empty for other steps
   */
  record Reply(List<ReportedRange> descriptors, Optional<String> leader) {
    Reply {
      descriptors = List.copyOf(descriptors);
    }

    /**
     * The reply carrying {@code answered}; none when one is malformed (a report with it was skipped
     * whole by the meta range, so nothing of it is reported; the step still counts as answered).
     */
    static Reply of(List<RangeDescriptorProto> answered) {
      try {
        return new Reply(RangeWire.reported(answered), Optional.empty());
      } catch (MalformedMetaCommandException e) {
        log.warn("node answered a malformed descriptor error={}", e.getMessage());
        return new Reply(List.of(), Optional.empty());
      }
    }
  }

  /**
   * A failed step call as the controller takes it, decoded here so it reads no wire errors.
   *
   * @param kind how the queue takes it: a refusal, a redirection to {@code leader}, or a retry
   * @param leader the leader a NOT_LEADER answer named, when it named a node other than the one called
   */
  record Failure(OperatorQueue.Failure kind, Optional<String> leader) {
    /** {@code err}, the failure of a step call sent to {@code calledNodeId}. */
    static Failure of(Throwable err, String calledNodeId) {
      Throwable c = Controller.unwrap(err);
      Optional<String> hint = RangeKvErrors.fromThrowable(c.getCause() == null ? err : c.getCause())
          .filter(e -> e.hasNotLeader()).map(e -> e.getNotLeader().getLeaderNodeId())
          .filter(h -> !h.isEmpty() && !h.equals(calledNodeId));
      OperatorQueue.Failure kind = isRefusal(err) ? OperatorQueue.Failure.REFUSED
          : hint.isPresent() ? OperatorQueue.Failure.REDIRECTED : OperatorQueue.Failure.RETRY;
      return new Failure(kind, hint);
    }
  }

  /** A call refused or failed; {@code getMessage()} says what the node answered. */
  static final class CallFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CallFailedException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * @param channels a channel to a node's client address (TLS and cluster id as the node's own calls)
   * @param timeouts each call's deadline is one attempt of its step
   * @param moveBytesPerSecond span snapshot bandwidth of an added replica (0 = unlimited)
   * @param childIds grants a split's child id (the meta range's {@code allocateRangeIds(1)}, a local
   *     proposal: the controller runs on the meta leader)
   */
  StepCalls(Function<String, Channel> channels, StepTimeouts timeouts, long moveBytesPerSecond,
      Supplier<CompletableFuture<RangeIdBlock>> childIds) {
    this.channels = channels;
    this.timeouts = timeouts;
    this.moveBytesPerSecond = moveBytesPerSecond;
    this.childIds = childIds;
  }

  /** A step's call: the node it went to and its answer to come. */
  record Sent(String nodeId, CompletableFuture<Reply> reply) {}

  /**
   * Sends {@code send}'s step to the range's reported leader or, while none is reported (a split's new
   * half), to {@code hint} (the node that split it, or a NOT_LEADER answer's leader) or else its first
   * replica; empty (nothing sent) when no such node has an address: the next pass tries again. With
   * {@code wakeFirst} the range's replicas are woken ({@link #wake}) before the step's call.
   */
  Optional<Sent> send(OperatorQueue.Send send, MetaView view, Optional<String> hint, boolean wakeFirst) {
    var replicas = send.seen().descriptor().replicas();
    String leader = send.seen().leader();
    if (leader.isEmpty()) {
      // a NOT_LEADER hint may name a voter the descriptor does not list yet (see Controller#observed)
      leader = hint.orElse(replicas.isEmpty() ? "" : replicas.get(0));
    }
    String target = leader;
    if (address(view, target).isEmpty()) {
      return Optional.empty();
    }
    // a dormant range has no leader to take the step: wake its replicas first (an awake one answers at once)
    CompletableFuture<Void> woken = wakeFirst ? wake(send, view) : CompletableFuture.completedFuture(null);
    CompletableFuture<Reply> reply = woken.thenCompose(v -> sendTo(send, view, target)
        .orElseGet(() -> CompletableFuture.failedFuture(new CallFailedException("node " + target
            + " has no address in the meta range", null))));
    return Optional.of(new Sent(target, reply));
  }

  /**
   * Asks each replica's node of the step's range (and of a merge's right range) to reopen the range if
   * it is dormant ({@code WakeRange}); completes when all answered or failed, never exceptionally: a
   * node that cannot answer leaves the step to find the leader among the others, or to fail and retry.
   */
  CompletableFuture<Void> wake(OperatorQueue.Send send, MetaView view) {
    List<CompletableFuture<Void>> calls = new ArrayList<>();
    wakeRange(send.seen().descriptor().rangeId(), send.seen().descriptor().replicas(), view, calls);
    if (send.step() instanceof OpStep.Merge m) {
      view.range(m.rightRangeId()).ifPresent(r -> wakeRange(m.rightRangeId(),
          r.replicas(), view, calls));
    }
    return CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0]));
  }

  private void wakeRange(long rangeId, List<String> replicas, MetaView view, List<CompletableFuture<Void>> calls) {
    for (String nodeId : replicas) {
      Optional<String> address = address(view, nodeId);
      if (address.isEmpty()) {
        continue;
      }
      ReplicaServiceGrpc.ReplicaServiceStub stub = ReplicaServiceGrpc.newStub(channels.apply(address.get()))
          .withDeadlineAfter(WAKE_DEADLINE_MILLIS, TimeUnit.MILLISECONDS);
      calls.add(call(stub::wakeRange, WakeRangeRequest.newBuilder().setRangeId(rangeId).build(),
          r -> Reply.of(List.of())).handle((r, err) -> null));
    }
  }

  private Optional<CompletableFuture<Reply>> sendTo(OperatorQueue.Send send, MetaView view, String leader) {
    Optional<String> address = address(view, leader);
    if (address.isEmpty()) {
      return Optional.empty();
    }
    NodeAdminServiceGrpc.NodeAdminServiceStub stub = NodeAdminServiceGrpc.newStub(
        channels.apply(address.get())).withDeadlineAfter(timeouts.of(send.step()), TimeUnit.MILLISECONDS);
    var d = send.seen().descriptor();
    RangeHeader header = RangeHeader.newBuilder().setRangeId(d.rangeId()).setGeneration(d.generation()).build();
    OpStep step = send.step();
    if (step instanceof OpStep.AddReplica a) {
      return Optional.of(addReplica(stub, view, header, a.nodeId(), ""));
    }
    if (step instanceof OpStep.ReplaceReplica r) {
      return Optional.of(addReplica(stub, view, header, r.toNode(), r.fromNode()));
    }
    if (step instanceof OpStep.RemoveReplica r) {
      return Optional.of(call(stub::removeReplica, (RemoveReplicaRequest.newBuilder().setHeader(header)
          .setNodeId(r.nodeId()).build()), x -> Reply.of(List.of(x.getRange()))));
    }
    if (step instanceof OpStep.TransferLeader t) {
      return Optional.of(transfer(stub, header, t.toNode()));
    }
    if (step instanceof OpStep.TransferLeaderAway t) {
      // the heir when it is still a replica; else any other replica (the step only needs leadership off)
      String to = d.replicas().contains(t.heir()) && !t.heir().equals(t.fromNode()) ? t.heir()
          : d.replicas().stream().filter(n -> !n.equals(t.fromNode())).findFirst().orElse(t.heir());
      return Optional.of(transfer(stub, header, to));
    }
    if (step instanceof OpStep.SplitAt s) {
      SplitRangeRequest.Builder b = SplitRangeRequest.newBuilder().setHeader(header).setChildDormant(s.childDormant());
      s.key().ifPresent(k -> b.setSplitKey(ProtoValues.bytes(k)));
      // each attempt takes a fresh id: a retry after a lost answer either loses to the split that applied
      // (the generation check) or is the only one; an id that names no range is a gap
      return Optional.of(childIds.get()
          .handle((block, err) -> {
            if (err != null) {
              throw new CallFailedException("no range id for the split's child: the meta range did not grant one ("
                  + Controller.unwrap(err).getMessage() + ")", err);
            }
            return block;
          })
          .thenCompose(block -> call(stub::splitRange, b.setChildRangeId(block.first()).build(),
              r -> Reply.of(List.of(r.getLeft(), r.getRight())))));
    }
    OpStep.Merge m = (OpStep.Merge) step;
    long rightGeneration = view.range(m.rightRangeId()).map(RangeDescriptor::generation)
        .orElse(m.rightGeneration());
    return Optional.of(call(stub::mergeRanges, (MergeRangesRequest.newBuilder().setHeader(header)
            .setRight(RangeHeader.newBuilder().setRangeId(m.rightRangeId()).setGeneration(rightGeneration)).build()),
        r -> Reply.of(List.of(r.getMerged()))));
  }

  private CompletableFuture<Reply> transfer(NodeAdminServiceGrpc.NodeAdminServiceStub stub, RangeHeader header,
      String to) {
    return call(stub::transferLeader, (TransferLeaderRequest.newBuilder().setHeader(header).setNodeId(to).build()),
        r -> new Reply(List.of(), Optional.of(r.getLeaderNodeId().isEmpty() ? to : r.getLeaderNodeId())));
  }

  static Optional<String> address(MetaView view, String nodeId) {
    if (nodeId.isEmpty()) {
      return Optional.empty();
    }
    return view.nodes().stream().filter(n -> n.nodeId().equals(nodeId)).map(NodeInfo::address)
        .filter(a -> !a.isEmpty()).findFirst();
  }

  /**
   * Adds a replica on {@code toNode} to the range {@code header} names; in place of {@code replacing}'s
   * (one joint configuration change) unless that is empty.
   */
  private CompletableFuture<Reply> addReplica(NodeAdminServiceGrpc.NodeAdminServiceStub stub, MetaView view,
      RangeHeader header, String toNode, String replacing) {
    Optional<String> to = address(view, toNode);
    if (to.isEmpty()) {
      return CompletableFuture.failedFuture(new CallFailedException("node " + toNode
          + " has no record in the meta range", null));
    }
    return call(stub::addReplica, AddReplicaRequest.newBuilder().setHeader(header).setAddress(to.get())
        .setBytesPerSecond(moveBytesPerSecond).setReplacingNodeId(replacing).build(),
        r -> Reply.of(List.of(r.getRange())));
  }

  /** One async unary call as a CompletableFuture of {@code f}'s reply; failures say what the node answered. */
  private static <Q, T> CompletableFuture<Reply> call(BiConsumer<Q, StreamObserver<T>> rpc, Q request,
      Function<T, Reply> f) {
    return UnaryCalls.future(rpc, request).handle((answer, t) -> {
      if (t != null) {
        throw new CompletionException(new CallFailedException(message(t), t));
      }
      return f.apply(answer);
    });
  }

  /**
   * Whether a failed call is a refusal of the step for what it is (an invalid argument, an internal
   * error on the node): sending it again cannot help, so its operator is cancelled at once. Anything
   * else may pass on a retry: an unreachable node, another leader, a deadline, a range not there yet, a
   * failure that never reached a node.
   */
  static boolean isRefusal(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof io.grpc.StatusRuntimeException || c instanceof io.grpc.StatusException) {
        Status.Code code = Status.fromThrowable(c).getCode();
        return code == Status.Code.INVALID_ARGUMENT || code == Status.Code.INTERNAL || code == Status.Code.UNKNOWN
            || code == Status.Code.UNIMPLEMENTED || code == Status.Code.PERMISSION_DENIED
            || code == Status.Code.UNAUTHENTICATED;
      }
    }
    return false;
  }

  static String message(Throwable t) {
    Optional<dev.rangekv.proto.RangeKvError> typed = RangeKvErrors.fromThrowable(t);
    if (typed.isPresent() && !typed.get().getMessage().isEmpty()) {
      return typed.get().getMessage();
    }
    Status s = Status.fromThrowable(t);
    return s.getDescription() != null ? s.getDescription() : s.getCode().toString();
  }
}
