package dev.rangekv.server.ratis;

import dev.rangekv.server.security.PeerIdentity;
import dev.rangekv.server.security.RefusalLog;
import dev.rangekv.server.security.Role;
import java.util.Optional;
import org.apache.ratis.thirdparty.io.grpc.Grpc;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.ServerCall;
import org.apache.ratis.thirdparty.io.grpc.ServerCallHandler;
import org.apache.ratis.thirdparty.io.grpc.ServerInterceptor;
import org.apache.ratis.thirdparty.io.grpc.Status;

/**
 * Serves Ratis' gRPC port (votes, appends, snapshots, group admin) only to nodes: a client certificate of
 * the cluster's CA passes the TLS handshake but is refused here with PERMISSION_DENIED. Ratis' own shaded
 * gRPC, hence its own interceptor type.
 */
final class RaftPeerCheck implements ServerInterceptor {
  private final RefusalLog refusals = new RefusalLog(System::nanoTime);

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    Optional<PeerIdentity> peer = PeerIdentity.of(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
    if (peer.isPresent() && peer.get().node()) {
      return next.startCall(call, headers);
    }
    String method = call.getMethodDescriptor().getFullMethodName();
    Status refusal = peer.isEmpty()
        ? Status.UNAUTHENTICATED.withDescription("no node certificate: the Raft port serves mutual TLS only")
        : Status.PERMISSION_DENIED.withDescription(method + " needs " + Role.NODE.text() + "; the caller is user "
            + peer.get().name());
    refusals.refused("raft", String.valueOf(call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR)),
        peer.map(PeerIdentity::name).orElse("-"), method, refusal.getCode().toString());
    call.close(refusal, new Metadata());
    return new ServerCall.Listener<>() { };
  }
}
