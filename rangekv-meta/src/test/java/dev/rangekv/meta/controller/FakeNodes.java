package dev.rangekv.meta.controller;

import dev.rangekv.proto.admin.AddReplicaRequest;
import dev.rangekv.proto.admin.ChangeReplicasResponse;
import dev.rangekv.proto.admin.MergeRangesRequest;
import dev.rangekv.proto.admin.MergeRangesResponse;
import dev.rangekv.proto.admin.NodeAdminServiceGrpc;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.admin.RemoveReplicaRequest;
import dev.rangekv.proto.admin.SplitRangeRequest;
import dev.rangekv.proto.admin.SplitRangeResponse;
import dev.rangekv.proto.admin.TransferLeaderRequest;
import dev.rangekv.proto.admin.TransferLeaderResponse;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.PrepareMetaReplicaRequest;
import dev.rangekv.proto.replica.PrepareMetaReplicaResponse;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.proto.replica.ReplicaServiceGrpc;
import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The {@link FakeCluster}'s nodes as the controller sees them: one in-process gRPC server per node
 * address answering the node-admin and replica calls from the model, on the calling thread (so a test
 * tick runs its calls to the end), except added replicas while a move gate is closed: those wait on
 * {@code slowExecutor}. A call to a node that does not lead the range is refused with NOT_LEADER, one
 * to a dead node with UNAVAILABLE; the model's own refusals become INTERNAL with their message.
 */
final class FakeNodes implements AutoCloseable {
  private final FakeCluster cluster;
  private final Executor slowExecutor;
  private final String prefix = "fake-" + UUID.randomUUID() + "-";
  private final Map<String, Server> servers = new ConcurrentHashMap<>();
  private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();

  FakeNodes(FakeCluster cluster, Executor slowExecutor) {
    this.cluster = cluster;
    this.slowExecutor = slowExecutor;
  }

  /** A channel to the node at {@code address} (its server starts on first use). */
  Channel channel(String address) {
    servers.computeIfAbsent(address, this::start);
    return channels.computeIfAbsent(address,
        a -> InProcessChannelBuilder.forName(prefix + a).directExecutor().build());
  }

  private Server start(String address) {
    try {
      return InProcessServerBuilder.forName(prefix + address).directExecutor()
          .addService(new Admin(address)).addService(new Replicas(address)).build().start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    channels.values().forEach(ManagedChannel::shutdownNow);
    servers.values().forEach(Server::shutdownNow);
  }

  private Optional<RuntimeException> refusal(String address, RangeHeader header) {
    Optional<String> node = cluster.nodeAt(address);
    if (node.isEmpty() || cluster.isDead(node.get())) {
      return Optional.of(Status.UNAVAILABLE.withDescription("node at " + address + " does not answer")
          .asRuntimeException());
    }
    String leader;
    try {
      leader = cluster.leaderOf(header.getRangeId());
    } catch (IllegalArgumentException e) {
      return Optional.of(RangeKvErrors.toStatusException(RangeKvErrors.rangeNotFound(header.getRangeId())));
    }
    if (!leader.equals(node.get())) {
      return Optional.of(RangeKvErrors.toStatusException(RangeKvErrors.notLeader(header.getRangeId(), leader, "",
          true)));
    }
    return Optional.empty();
  }

  private static <T> void answer(StreamObserver<T> out, Supplier<T> body) {
    T value;
    try {
      value = body.get();
    } catch (RuntimeException e) {
      out.onError(Status.INTERNAL.withDescription(e.getMessage()).asRuntimeException());
      return;
    }
    out.onNext(value);
    out.onCompleted();
  }

  private final class Admin extends NodeAdminServiceGrpc.NodeAdminServiceImplBase {
    private final String address;

    Admin(String address) {
      this.address = address;
    }

    private boolean refused(RangeHeader header, StreamObserver<?> out) {
      Optional<RuntimeException> no = refusal(address, header);
      no.ifPresent(out::onError);
      return no.isPresent();
    }

    @Override
    public void splitRange(SplitRangeRequest r, StreamObserver<SplitRangeResponse> out) {
      if (!refused(r.getHeader(), out)) {
        answer(out, () -> {
          var s = cluster.split(r.getHeader().getRangeId(),
              r.getSplitKey().isEmpty() ? Optional.empty() : Optional.of(r.getSplitKey()), r.getChildRangeId());
          if (r.getChildDormant()) {
            cluster.bornDormant(r.getChildRangeId());
          }
          return SplitRangeResponse.newBuilder().setLeft(s.getLeft()).setRight(s.getRight()).build();
        });
      }
    }

    @Override
    public void addReplica(AddReplicaRequest r, StreamObserver<ChangeReplicasResponse> out) {
      if (refused(r.getHeader(), out)) {
        return;
      }
      String to = cluster.nodeAt(r.getAddress()).orElse(r.getAddress());
      String leaving = r.getReplacingNodeId();
      if (cluster.leaderOf(r.getHeader().getRangeId()).equals(leaving)) {
        // as a real node: the leader does not replace itself; retryable, nothing applied
        out.onError(RangeKvErrors.toStatusException(RangeKvErrors.unavailable("the leader of range "
            + r.getHeader().getRangeId() + " cannot replace its own replica", true)));
        return;
      }
      int active = cluster.activeMoves.incrementAndGet();
      cluster.maxActiveMoves.accumulateAndGet(active, Math::max);
      CountDownLatch gate = cluster.moveGate();
      Runnable add = () -> {
        try {
          answer(out, () -> ChangeReplicasResponse.newBuilder().setRange(leaving.isEmpty()
              ? cluster.addReplica(r.getHeader().getRangeId(), to)
              : cluster.replaceReplica(r.getHeader().getRangeId(), leaving, to)).build());
        } finally {
          cluster.activeMoves.decrementAndGet();
        }
      };
      if (gate == null) {
        add.run();
        return;
      }
      slowExecutor.execute(() -> {
        try {
          if (!gate.await(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("move gate never opened");
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        add.run();
      });
    }

    @Override
    public void removeReplica(RemoveReplicaRequest r, StreamObserver<ChangeReplicasResponse> out) {
      if (!refused(r.getHeader(), out)) {
        answer(out, () -> ChangeReplicasResponse.newBuilder()
            .setRange(cluster.removeReplica(r.getHeader().getRangeId(), r.getNodeId())).build());
      }
    }

    @Override
    public void transferLeader(TransferLeaderRequest r, StreamObserver<TransferLeaderResponse> out) {
      if (!refused(r.getHeader(), out)) {
        answer(out, () -> {
          cluster.transferLeader(r.getHeader().getRangeId(), r.getNodeId());
          return TransferLeaderResponse.newBuilder().setLeaderNodeId(r.getNodeId()).build();
        });
      }
    }

    @Override
    public void mergeRanges(MergeRangesRequest r, StreamObserver<MergeRangesResponse> out) {
      if (!refused(r.getHeader(), out)) {
        answer(out, () -> MergeRangesResponse.newBuilder()
            .setMerged(cluster.merge(r.getHeader().getRangeId(), r.getRight().getRangeId())).build());
      }
    }
  }

  private final class Replicas extends ReplicaServiceGrpc.ReplicaServiceImplBase {
    private final String address;

    Replicas(String address) {
      this.address = address;
    }

    @Override
    public void prepareMetaReplica(PrepareMetaReplicaRequest r, StreamObserver<PrepareMetaReplicaResponse> out) {
      String node = cluster.nodeAt(address).orElse(address);
      answer(out, () -> {
        cluster.prepareMetaReplica(FakeCluster.record(node),
            r.getVotersList().stream().map(RaftReplica::getNodeId).map(FakeCluster::record).toList());
        return PrepareMetaReplicaResponse.getDefaultInstance();
      });
    }
  }
}
