package dev.rangekv.server.node;

import dev.rangekv.proto.meta.MetaNodeServiceGrpc;
import static org.assertj.core.api.Assertions.assertThat;
import dev.rangekv.proto.meta.MetaNodeServiceGrpc;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.proto.ListNodesRequest;
import dev.rangekv.proto.MetaServiceGrpc;
import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.meta.HeartbeatRequest;
import dev.rangekv.proto.meta.MetaNodeServiceGrpc;
import dev.rangekv.proto.meta.RegisterNodeRequest;
import dev.rangekv.proto.replica.ClusterIdentityServiceGrpc;
import dev.rangekv.proto.replica.FetchSpanRequest;
import dev.rangekv.proto.replica.IdentifyRequest;
import dev.rangekv.proto.replica.PrepareMetaReplicaRequest;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.server.raft.PeerChannels;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Node-to-node calls carry the caller's cluster id: a node of another cluster is refused with a typed
 * {@code ClusterMismatch} on registration, heartbeat, meta replica preparation and span fetch, and
 * nothing is merged in; the same calls from this cluster's id go through.
 */
@Timeout(120)
class ClusterIdCheckIT {
  @TempDir
  Path dir;

  @Test
  void callsFromAnotherCluster_areRefused_andNotMergedIn() throws Exception {
    ControllerConfig controller = ControllerConfig.builder().tickMillis(500).deadNodeTimeoutMillis(5_000).build();
    try (LocalCluster cluster = LocalCluster.start(1, dir, RaftTuning.forTests(), controller);
        PeerChannels stranger = PeerChannels.ofCluster("another-cluster")) {
      RangeKvNode node = cluster.node(0);
      String address = node.config().clientAddress();
      String own = node.clusterId();
      assertThat(own).isNotEmpty();
      assertThat(ClusterIdentityServiceGrpc.newBlockingStub(stranger.channel(address)).withDeadlineAfter(10, TimeUnit.SECONDS)
          .identify(IdentifyRequest.getDefaultInstance()).getClusterId()).isEqualTo(own);

      NodeRecord x = NodeRecord.newBuilder().setNodeId("x9").setAddress("127.0.0.1:1").setRaftAddress("127.0.0.1:2").build();
      MetaNodeServiceGrpc.MetaNodeServiceBlockingStub meta = MetaNodeServiceGrpc.newBlockingStub(stranger.channel(address))
          .withDeadlineAfter(10, TimeUnit.SECONDS);
      assertMismatch(() -> meta.registerNode(RegisterNodeRequest.newBuilder().setNode(x).build()), own);
      assertMismatch(() -> meta.heartbeat(HeartbeatRequest.newBuilder().setNode(x).build()), own);
      assertMismatch(() -> stranger.replicaService(address, Duration.ofSeconds(10))
          .prepareMetaReplica(PrepareMetaReplicaRequest.newBuilder().addVoters(RaftReplica.newBuilder().setNodeId("x9")).build()),
          own);
      assertMismatch(() -> stranger.replicaService(address, Duration.ofSeconds(10))
          .fetchSpan(FetchSpanRequest.newBuilder().setRangeId(1).build()).hasNext(), own);

      try (PeerChannels member = PeerChannels.ofCluster(own)) {
        var nodes = MetaServiceGrpc.newBlockingStub(member.channel(address)).withDeadlineAfter(10, TimeUnit.SECONDS)
            .listNodes(ListNodesRequest.getDefaultInstance());
        assertThat(nodes.getNodesList()).extracting(NodeRecord::getNodeId).containsExactly("n1");
      }
    }
  }

  private static void assertMismatch(Runnable call, String own) {
    StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class, call::run);
    assertThat(e).as("refused").isNotNull();
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    RangeKvError error = RangeKvErrors.fromThrowable(e).orElseThrow();
    assertThat(error.hasClusterMismatch()).isTrue();
    assertThat(error.getClusterMismatch().getExpectedClusterId()).isEqualTo(own);
    assertThat(error.getClusterMismatch().getActualClusterId()).isEqualTo("another-cluster");
  }
}
