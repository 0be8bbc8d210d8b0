package dev.rangekv.server.security;

import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.Optional;

/**
 * Serves a call of the client port only to a caller whose certificate has the role the method needs
 * ({@link MethodRoles}): UNAUTHENTICATED without a certificate, PERMISSION_DENIED naming the role
 * otherwise; each refusal is logged once a minute per peer.
 */
public final class PeerCheck implements ServerInterceptor {
  private final RefusalLog refusals = new RefusalLog(System::nanoTime);

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    String method = call.getMethodDescriptor().getFullMethodName();
    Role needed = MethodRoles.needed(method);
    Optional<PeerIdentity> peer = PeerIdentity.of(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
    Status refusal;
    if (peer.isEmpty()) {
      refusal = Status.UNAUTHENTICATED.withDescription("no client certificate: this node serves mutual TLS only");
    } else if (!peer.get().has(needed)) {
      refusal = Status.PERMISSION_DENIED.withDescription(method + " needs " + needed.text() + "; the caller is "
          + (peer.get().node() ? "a node" : "user " + peer.get().name()));
    } else {
      return next.startCall(call, headers);
    }
    refusals.refused("client", String.valueOf(call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR)),
        peer.map(PeerIdentity::name).orElse("-"), method, refusal.getCode().toString());
    call.close(refusal, new Metadata());
    return new ServerCall.Listener<>() { };
  }
}
