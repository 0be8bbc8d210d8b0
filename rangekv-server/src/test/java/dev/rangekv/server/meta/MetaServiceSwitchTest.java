package dev.rangekv.server.meta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.proto.ListNodesRequest;
import dev.rangekv.proto.ListNodesResponse;
import dev.rangekv.proto.MetaServiceGrpc;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.convert.RangeKvErrors;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The switch serves the redirect until a hosted meta service replaces it, on the same registered service. */
@Timeout(30)
class MetaServiceSwitchTest {
  @Test
  void redirectsUntilHosted_thenServes() throws Exception {
    AtomicReference<ServerServiceDefinition> current = new AtomicReference<>(MetaRedirect.service(() -> "10.0.0.1:7001"));
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(MetaServiceSwitch.service(current::get)).build().start();
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
    try {
      MetaServiceGrpc.MetaServiceBlockingStub stub = MetaServiceGrpc.newBlockingStub(channel);
      assertThatThrownBy(() -> stub.listNodes(ListNodesRequest.getDefaultInstance())).satisfies(e -> {
        RangeKvError error = RangeKvErrors.fromThrowable(e).orElseThrow();
        assertThat(error.getNotLeader().getLeaderAddress()).isEqualTo("10.0.0.1:7001");
        assertThat(error.getDefinitelyNotApplied()).isTrue();
      });

      current.set(new MetaServiceGrpc.MetaServiceImplBase() {
        @Override
        public void listNodes(ListNodesRequest req, StreamObserver<ListNodesResponse> out) {
          out.onNext(ListNodesResponse.newBuilder().setMetaLeaderNodeId("n1").build());
          out.onCompleted();
        }
      }.bindService());
      assertThat(stub.listNodes(ListNodesRequest.getDefaultInstance()).getMetaLeaderNodeId()).isEqualTo("n1");
    } finally {
      channel.shutdownNow();
      server.shutdownNow().awaitTermination();
    }
  }
}
