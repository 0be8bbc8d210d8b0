package dev.rangekv.server.meta;

import dev.rangekv.proto.MetaServiceGrpc;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A meta service a node registers once (MetaService and the nodes' MetaNodeService), at start: each call goes to whichever implementation is
 * current — the hosted meta service once this node runs a meta replica, a redirect before that (or on
 * a node that never hosts one). The meta group can be created after the gRPC server started.
 */
final class MetaServiceSwitch {
  private MetaServiceSwitch() {}

  static ServerServiceDefinition service(Supplier<ServerServiceDefinition> current) {
    return service(MetaServiceGrpc.getServiceDescriptor(), current);
  }

  /** As above for any of the meta range's services ({@code descriptor}: the public one or the nodes'). */
  static ServerServiceDefinition service(ServiceDescriptor descriptor, Supplier<ServerServiceDefinition> current) {
    return eachMethod(descriptor, method -> (ServerCall<Object, Object> call, Metadata headers) ->
        handler(current.get(), method).startCall(call, headers));
  }

  /** A definition of {@code descriptor}'s service whose every method is served by the handler {@code handlers} makes for it. */
  static ServerServiceDefinition eachMethod(ServiceDescriptor descriptor,
      Function<MethodDescriptor<?, ?>, ServerCallHandler<?, ?>> handlers) {
    ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(descriptor);
    for (MethodDescriptor<?, ?> m : descriptor.getMethods()) {
      add(b, m, handlers.apply(m));
    }
    return b.build();
  }

  @SuppressWarnings("unchecked") // the handler was made for this method, so it takes its request/response types
  private static <Q, R> void add(ServerServiceDefinition.Builder b, MethodDescriptor<Q, R> method,
      ServerCallHandler<?, ?> handler) {
    b.addMethod(method, (ServerCallHandler<Q, R>) handler);
  }

  @SuppressWarnings("unchecked") // same method descriptor, so the same request/response types
  private static ServerCallHandler<Object, Object> handler(ServerServiceDefinition target, MethodDescriptor<?, ?> method) {
    return (ServerCallHandler<Object, Object>) target.getMethod(method.getFullMethodName()).getServerCallHandler();
  }
}
