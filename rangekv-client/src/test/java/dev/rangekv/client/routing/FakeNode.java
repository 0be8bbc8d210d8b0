package dev.rangekv.client.routing;

import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.GetRequest;
import dev.rangekv.proto.GetResponse;
import dev.rangekv.proto.KvCallResults;
import dev.rangekv.proto.KvCalls;
import dev.rangekv.proto.KvServiceGrpc;
import dev.rangekv.proto.calls.CallStream;
import dev.rangekv.proto.ListRangesRequest;
import dev.rangekv.proto.ListRangesResponse;
import dev.rangekv.proto.NodeAdminServiceGrpc;
import dev.rangekv.proto.PutRequest;
import dev.rangekv.proto.PutResponse;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.ReplicaStatus;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.convert.RangeKvErrors;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A scripted node on a loopback port for router tests: lists fixed descriptors and answers gets and puts
 * with whatever the script returns (a reply, or a typed error), recording every request.
 */
final class FakeNode implements AutoCloseable {
  final List<PutRequest> puts = new CopyOnWriteArrayList<>();
  final List<GetRequest> gets = new CopyOnWriteArrayList<>();
  private final Server server;
  volatile List<RangeDescriptor> listed = List.of();
  volatile Function<PutRequest, RangeKvError> putScript = r -> null;
  volatile Function<GetRequest, RangeKvError> getScript = r -> null;

  FakeNode() throws IOException {
    server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
        .addService(new KvServiceGrpc.KvServiceImplBase() {
          @Override
          public StreamObserver<KvCalls> calls(StreamObserver<KvCallResults> out) {
            return CallStream.serve(this, out, Runnable::run);
          }

          @Override
          public void put(PutRequest request, StreamObserver<PutResponse> out) {
            puts.add(request);
            RangeKvError e = putScript.apply(request);
            if (e != null) {
              out.onError(RangeKvErrors.toStatusException(e));
            } else {
              out.onNext(PutResponse.getDefaultInstance());
              out.onCompleted();
            }
          }

          @Override
          public void get(GetRequest request, StreamObserver<GetResponse> out) {
            gets.add(request);
            RangeKvError e = getScript.apply(request);
            if (e != null) {
              out.onError(RangeKvErrors.toStatusException(e));
            } else {
              out.onNext(GetResponse.newBuilder().setFound(false).build());
              out.onCompleted();
            }
          }
        })
        .addService(new NodeAdminServiceGrpc.NodeAdminServiceImplBase() {
          @Override
          public void listRanges(ListRangesRequest request, StreamObserver<ListRangesResponse> out) {
            ListRangesResponse.Builder b = ListRangesResponse.newBuilder().setNodeId("fake");
            for (RangeDescriptor d : listed) {
              b.addReplicas(ReplicaStatus.newBuilder().setRange(ProtoValues.descriptor(d, n -> address())));
            }
            out.onNext(b.build());
            out.onCompleted();
          }
        })
        .build()
        .start();
  }

  String address() {
    return "127.0.0.1:" + server.getPort();
  }

  @Override
  public void close() {
    server.shutdownNow();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      // close() may not throw InterruptedException (javac's try lint): keep the flag, fail the test
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while stopping the fake node", e);
    }
  }
}
