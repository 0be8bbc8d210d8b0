package dev.rangekv.server.move;

import dev.rangekv.proto.calls.UnaryCalls;
import dev.rangekv.proto.replica.DropReplicaRequest;
import dev.rangekv.proto.replica.PrepareReplicaRequest;
import dev.rangekv.proto.replica.PrepareReplicaResponse;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.proto.replica.ReplicaServiceGrpc;
import dev.rangekv.server.raft.PeerChannels;
import dev.rangekv.server.replica.ReplicaDirectory;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** {@link ReplicaPeers} over the replica service, each call with its own deadline. Thread-safe. */
public final class GrpcReplicaPeers implements ReplicaPeers {
  private static final Duration PREPARE_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration DROP_TIMEOUT = Duration.ofSeconds(15);

  private final PeerChannels channels;
  private final ReplicaDirectory directory;

  public GrpcReplicaPeers(PeerChannels channels, ReplicaDirectory directory) {
    this.channels = channels;
    this.directory = directory;
  }

  @Override
  public CompletableFuture<RaftReplica> prepare(String address, PrepareReplicaRequest request) {
    return UnaryCalls.future(stub(address, PREPARE_TIMEOUT)::prepareReplica, request)
        .thenApply(PrepareReplicaResponse::getSelf);
  }

  @Override
  public CompletableFuture<Void> drop(String nodeId, DropReplicaRequest request) {
    return UnaryCalls.future(stub(directory.addressOf(nodeId), DROP_TIMEOUT)::dropReplica, request)
        .thenApply(r -> null);
  }

  private ReplicaServiceGrpc.ReplicaServiceStub stub(String address, Duration timeout) {
    return ReplicaServiceGrpc.newStub(channels.channel(address))
        .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }
}
