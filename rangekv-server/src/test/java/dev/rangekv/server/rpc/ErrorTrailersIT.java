package dev.rangekv.server.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.protobuf.ByteString;
import dev.rangekv.proto.GetRequest;
import dev.rangekv.proto.GetResponse;
import dev.rangekv.proto.KvServiceGrpc;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.ReplicaProto;
import dev.rangekv.proto.convert.RangeKvErrors;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Typed errors stay inside gRPC's 8 KiB header list whatever their size: a RangeMoved naming a map of
 * 1,000 ranges split at 8 KiB keys reaches a real Netty client as the typed error (cut to fit), not as
 * an INTERNAL {@code HeaderListSizeException}.
 */
@Timeout(60)
class ErrorTrailersIT {
  @Test
  void aRangeMovedWithAThousand8KiBDescriptors_arrivesTyped_andCut() throws Exception {
    List<RangeDescriptorProto> map = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      map.add(RangeDescriptorProto.newBuilder().setRangeId(i + 1).setStart(key(i)).setEnd(key(i + 1)).setGeneration(7)
          .addReplicas(ReplicaProto.newBuilder().setNodeId("n1").setAddress("127.0.0.1:7001")).build());
    }
    RangeKvError huge = RangeKvErrors.rangeMoved(map, "range moved: " + "r".repeat(100_000));
    assertThat(huge.getSerializedSize()).isGreaterThan(8_000_000);
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(new KvServiceGrpc.KvServiceImplBase() {
          @Override
          public void get(GetRequest request, StreamObserver<GetResponse> out) {
            out.onError(RangeKvErrors.toStatusException(huge));
          }
        }).build().start();
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
    try {
      StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class, () -> KvServiceGrpc
          .newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS).get(GetRequest.getDefaultInstance()));
      assertThat(e.getStatus().getCode()).as(e.toString()).isEqualTo(Status.Code.FAILED_PRECONDITION);
      RangeKvError got = RangeKvErrors.fromThrowable(e).orElseThrow();
      assertThat(got.hasRangeMoved()).isTrue();
      assertThat(got.getSerializedSize()).isLessThanOrEqualTo(RangeKvErrors.MAX_DETAIL_BYTES);
      assertThat(got.getMessage().length()).isLessThanOrEqualTo(RangeKvErrors.MAX_MESSAGE_CHARS);
      assertThat(got.getRangeMoved().getCurrentList()).isEqualTo(map.subList(0, got.getRangeMoved().getCurrentCount()));
      assertThat(got.getDefinitelyNotApplied()).isTrue();
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
    }
  }

  @Test
  void aSmallError_isLeftAsItIs() {
    RangeKvError small = RangeKvErrors.notLeader(3, "n2", "127.0.0.1:7002", true);
    assertThat(RangeKvErrors.fitTrailers(small)).isSameAs(small);
  }

  private static ByteString key(int i) {
    byte[] b = new byte[8 << 10];
    Arrays.fill(b, (byte) 'k');
    byte[] n = String.format("%06d", i).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    System.arraycopy(n, 0, b, b.length - n.length, n.length);
    return ByteString.copyFrom(b);
  }
}
