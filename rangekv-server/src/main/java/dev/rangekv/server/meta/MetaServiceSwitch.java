package dev.rangekv.server.meta;

import dev.rangekv.proto.MetaServiceGrpc;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import java.util.function.Supplier;

/**
 * The meta service a node registers once, at start: each call goes to whichever implementation is
 * current — the hosted meta service once this node runs a meta replica, a redirect before that (or on
 * a node that never hosts one). The meta group can be created after the gRPC server started.
 */
final class MetaServiceSwitch {
  private MetaServiceSwitch() {}

  static ServerServiceDefinition service(Supplier<ServerServiceDefinition> current) {
    ServiceDescriptor descriptor = MetaServiceGrpc.getServiceDescriptor();
    ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(descriptor);
    for (MethodDescriptor<?, ?> m : descriptor.getMethods()) {
      add(b, m, current);
    }
    return b.build();
  }

  private static <Q, R> void add(ServerServiceDefinition.Builder b, MethodDescriptor<Q, R> method,
      Supplier<ServerServiceDefinition> current) {
    b.addMethod(method, new ServerCallHandler<Q, R>() {
      @Override
      public ServerCall.Listener<Q> startCall(ServerCall<Q, R> call, io.grpc.Metadata headers) {
        @SuppressWarnings("unchecked") // same method descriptor, so the same request/response types
        ServerMethodDefinition<Q, R> target =
            (ServerMethodDefinition<Q, R>) current.get().getMethod(method.getFullMethodName());
        return target.getServerCallHandler().startCall(call, headers);
      }
    });
  }
}
