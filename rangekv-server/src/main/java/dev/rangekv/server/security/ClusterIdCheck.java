package dev.rangekv.server.security;

import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.ClusterIdentityServiceGrpc;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;

/**
 * The cluster id on node-to-node calls: a node stamps its calls with its cluster id (header
 * {@code rangekv-cluster-id}) and refuses calls stamped with another one with a typed
 * {@code ClusterMismatch} (registration, heartbeats, span fetches, replica and meta group adds alike), so
 * a node of another cluster is never merged in. Calls without the header (clients, commands) and the
 * identity question itself pass. An
 * empty own id (an in-JVM cluster without identity files) checks nothing. Immutable, thread-safe.
 */
public final class ClusterIdCheck implements ServerInterceptor, ClientInterceptor {
  /** The header carrying the caller's cluster id. */
  public static final Metadata.Key<String> HEADER = Metadata.Key.of("rangekv-cluster-id", Metadata.ASCII_STRING_MARSHALLER);
  private final String clusterId;

  /** @param clusterId this node's cluster id, or empty for none */
  public ClusterIdCheck(String clusterId) {
    this.clusterId = clusterId;
  }

  public String clusterId() {
    return clusterId;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    String theirs = headers.get(HEADER);
    boolean identify = ClusterIdentityServiceGrpc.SERVICE_NAME.equals(call.getMethodDescriptor().getServiceName());
    if (!identify && theirs != null && !theirs.isEmpty() && !clusterId.isEmpty() && !theirs.equals(clusterId)) {
      RangeKvError error = RangeKvErrors.clusterMismatch(clusterId, theirs);
      Metadata trailers = new Metadata();
      trailers.put(RangeKvErrors.TRAILER_KEY, error);
      call.close(Status.FAILED_PRECONDITION.withDescription(error.getMessage()), trailers);
      return new ServerCall.Listener<>() {};
    }
    return next.startCall(call, headers);
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
      @Override
      public void start(Listener<R> listener, Metadata headers) {
        if (!clusterId.isEmpty()) {
          headers.put(HEADER, clusterId);
        }
        super.start(listener, headers);
      }
    };
  }
}
