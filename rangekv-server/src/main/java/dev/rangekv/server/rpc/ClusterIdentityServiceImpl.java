package dev.rangekv.server.rpc;

import dev.rangekv.proto.replica.ClusterIdentityServiceGrpc;
import dev.rangekv.proto.replica.IdentifyRequest;
import dev.rangekv.proto.replica.IdentifyResponse;
import io.grpc.stub.StreamObserver;

/** Answers who this node is (cluster id, node id): a node about to join asks its seeds first. */
public final class ClusterIdentityServiceImpl extends ClusterIdentityServiceGrpc.ClusterIdentityServiceImplBase {
  private final IdentifyResponse answer;

  public ClusterIdentityServiceImpl(String clusterId, String nodeId) {
    this.answer = IdentifyResponse.newBuilder().setClusterId(clusterId).setNodeId(nodeId).build();
  }

  @Override
  public void identify(IdentifyRequest request, StreamObserver<IdentifyResponse> out) {
    out.onNext(answer);
    out.onCompleted();
  }
}
