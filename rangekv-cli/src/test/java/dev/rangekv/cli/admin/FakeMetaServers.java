package dev.rangekv.cli.admin;

import com.google.protobuf.ByteString;
import dev.rangekv.proto.AdminMergeRequest;
import dev.rangekv.proto.AdminMergeResponse;
import dev.rangekv.proto.AdminMoveRequest;
import dev.rangekv.proto.AdminMoveResponse;
import dev.rangekv.proto.AdminSplitRequest;
import dev.rangekv.proto.AdminSplitResponse;
import dev.rangekv.proto.EventProto;
import dev.rangekv.proto.FigureProto;
import dev.rangekv.proto.ListEventsRequest;
import dev.rangekv.proto.ListEventsResponse;
import dev.rangekv.proto.ListNodesRequest;
import dev.rangekv.proto.ListNodesResponse;
import dev.rangekv.proto.ListRangeStatsRequest;
import dev.rangekv.proto.ListRangeStatsResponse;
import dev.rangekv.proto.MetaServiceGrpc;
import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.PreSplitRequest;
import dev.rangekv.proto.PreSplitResponse;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.proto.ReplicaProto;
import dev.rangekv.proto.WhyRequest;
import dev.rangekv.proto.WhyResponse;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.server.meta.MetaRedirect;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Two loopback gRPC servers for command tests: a "follower" answering every MetaService call with
 * NOT_LEADER pointing at the "leader", and the leader answering from a fixed two-range map and
 * recording the admin requests it received. Range 42 does not exist.
 */
final class FakeMetaServers implements AutoCloseable {
  final List<Object> requests = new CopyOnWriteArrayList<>();
  private final Server leader;
  private final Server follower;

  FakeMetaServers() throws IOException {
    leader = start(new Leader().bindService());
    String leaderAddress = "127.0.0.1:" + leader.getPort();
    follower = start(MetaRedirect.service(() -> leaderAddress)); // as a node hosting no meta replica answers
  }

  private static Server start(ServerServiceDefinition service) throws IOException {
    return NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(service).build().start();
  }

  String leaderAddress() {
    return "127.0.0.1:" + leader.getPort();
  }

  String followerAddress() {
    return "127.0.0.1:" + follower.getPort();
  }

  static RangeDescriptorProto range(long id, String start, String end, long gen, String... nodes) {
    RangeDescriptorProto.Builder b = RangeDescriptorProto.newBuilder().setRangeId(id)
        .setStart(ByteString.copyFromUtf8(start)).setGeneration(gen);
    if (end == null) {
      b.setEndInfinite(true);
    } else {
      b.setEnd(ByteString.copyFromUtf8(end));
    }
    for (String n : nodes) {
      b.addReplicas(ReplicaProto.newBuilder().setNodeId(n).setAddress("127.0.0.1:1"));
    }
    return b.build();
  }

  static final RangeStatsProto R1 = RangeStatsProto.newBuilder().setRange(range(1, "", "m", 3, "n1", "n2", "n3"))
      .setLeaderNodeId("n1").setBytes(3 << 20).setKeys(1200).setReadQps(10).setWriteQps(240.5).build();
  static final RangeStatsProto R7 = RangeStatsProto.newBuilder().setRange(range(7, "m", null, 4, "n2", "n3", "n4"))
      .setLeaderNodeId("n4").setBytes(512).setKeys(3).build();
  static final EventProto SPLIT = EventProto.newBuilder().setSeq(5).setAtMillis(0).setKind("split")
      .addRangeIds(1).addRangeIds(7).setReason("size above max-bytes").setDetail("r1 split at \"m\" -> r1, r7")
      .addFigures(FigureProto.newBuilder().setName("bytes").setValue(2_200_000))
      .addFigures(FigureProto.newBuilder().setName("max-bytes").setValue(1 << 20)).build();
  static final EventProto ALERT = EventProto.newBuilder().setSeq(6).setAtMillis(1000).setKind("alert-monotonic")
      .addRangeIds(7).setReason("the last range was the hottest in 9 of 10 ticks").build();

  private final class Leader extends MetaServiceGrpc.MetaServiceImplBase {
    @Override
    public void listRangeStats(ListRangeStatsRequest req, StreamObserver<ListRangeStatsResponse> out) {
      reply(out, ListRangeStatsResponse.newBuilder().addRanges(R1).addRanges(R7).setMapVersion(9).build());
    }

    @Override
    public void listNodes(ListNodesRequest req, StreamObserver<ListNodesResponse> out) {
      ListNodesResponse.Builder b = ListNodesResponse.newBuilder().setMetaLeaderNodeId("n1");
      for (int i = 1; i <= 4; i++) {
        b.addNodes(NodeRecord.newBuilder().setNodeId("n" + i).setAddress("127.0.0.1:700" + i).setReplicaCount(i)
            .setLeaderCount(1).setBytes(1L << 20).setQps(12.5).setLastHeartbeatMillis(System.currentTimeMillis()));
        if (i != 3) {
          b.addLiveNodeIds("n" + i);
        }
      }
      reply(out, b.build());
    }

    @Override
    public void listEvents(ListEventsRequest req, StreamObserver<ListEventsResponse> out) {
      requests.add(req);
      reply(out, ListEventsResponse.newBuilder().addEvents(SPLIT).addEvents(ALERT).build());
    }

    @Override
    public void why(WhyRequest req, StreamObserver<WhyResponse> out) {
      if (req.getRangeId() != 7) {
        // as MetaServiceImpl answers an unknown range id
        out.onError(RangeKvErrors.toStatusException(
            RangeKvErrors.invalidArgument("range_id", "unknown range " + req.getRangeId())));
        return;
      }
      reply(out, WhyResponse.newBuilder().setRange(R7).addDecisions(ALERT).addEvents(SPLIT).build());
    }

    @Override
    public void split(AdminSplitRequest req, StreamObserver<AdminSplitResponse> out) {
      requests.add(req);
      if (req.getRangeId() == 42) {
        out.onError(RangeKvErrors.toStatusException(RangeKvErrors.rangeNotFound(42)));
        return;
      }
      reply(out, AdminSplitResponse.newBuilder().setLeft(range(7, "m", "p", 5, "n2", "n3", "n4"))
          .setRight(range(8, "p", null, 5, "n2", "n3", "n4")).build());
    }

    @Override
    public void merge(AdminMergeRequest req, StreamObserver<AdminMergeResponse> out) {
      requests.add(req);
      reply(out, AdminMergeResponse.newBuilder().setMerged(range(1, "", null, 6, "n1", "n2", "n3")).build());
    }

    @Override
    public void move(AdminMoveRequest req, StreamObserver<AdminMoveResponse> out) {
      requests.add(req);
      reply(out, AdminMoveResponse.newBuilder().setRange(range(7, "m", null, 6, "n2", "n3", "n1")).build());
    }

    @Override
    public void preSplit(PreSplitRequest req, StreamObserver<PreSplitResponse> out) {
      requests.add(req);
      reply(out, PreSplitResponse.newBuilder().addRanges(range(1, "", "g", 4, "n1")).addRanges(range(9, "g", null, 1, "n2"))
          .build());
    }
  }

  private static <T> void reply(StreamObserver<T> out, T value) {
    out.onNext(value);
    out.onCompleted();
  }

  @Override
  public void close() {
    leader.shutdownNow();
    follower.shutdownNow();
    try {
      leader.awaitTermination(5, TimeUnit.SECONDS);
      follower.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // both are shut down; only the wait was cut short
    }
  }
}
