package dev.rangekv.server.multiraft;

import dev.rangekv.proto.multiraft.Envelope;
import dev.rangekv.proto.multiraft.MultiRaftTransportGrpc;
import dev.rangekv.proto.multiraft.StreamClosed;
import io.grpc.stub.StreamObserver;
import java.util.function.Consumer;

/** The receiving end of the peers' streams: each envelope goes to the engine, which spreads it over its stripes. */
final class TransportService extends MultiRaftTransportGrpc.MultiRaftTransportImplBase {
  private final Consumer<Envelope> receiver;

  TransportService(Consumer<Envelope> receiver) {
    this.receiver = receiver;
  }

  @Override
  public StreamObserver<Envelope> stream(StreamObserver<StreamClosed> responses) {
    return new StreamObserver<>() {
      @Override
      public void onNext(Envelope envelope) {
        receiver.accept(envelope);
      }

      @Override
      public void onError(Throwable t) {
        // the peer went away; it opens a new stream when it sends again
      }

      @Override
      public void onCompleted() {
        responses.onNext(StreamClosed.getDefaultInstance());
        responses.onCompleted();
      }
    };
  }
}
