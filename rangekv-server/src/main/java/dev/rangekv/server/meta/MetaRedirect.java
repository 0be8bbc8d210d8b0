package dev.rangekv.server.meta;

import dev.rangekv.proto.MetaServiceGrpc;
import dev.rangekv.proto.convert.RangeKvErrors;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.stub.ServerCalls;
import java.util.function.Supplier;

/**
 * The meta services of a node that hosts no meta replica: every call is answered NOT_LEADER (range id
 * 0) with the meta leader's address as this node last saw it (empty when it never did), so callers go
 * there. Nothing is applied, so the error says the call definitely did not happen.
 */
public final class MetaRedirect {
  private MetaRedirect() {}

  /** A service definition answering every MetaService method with a redirect to {@code leaderAddress}. */
  public static ServerServiceDefinition service(Supplier<String> leaderAddress) {
    return service(MetaServiceGrpc.getServiceDescriptor(), leaderAddress);
  }

  /** The same for any of the meta range's services ({@code descriptor}). */
  public static ServerServiceDefinition service(ServiceDescriptor descriptor, Supplier<String> leaderAddress) {
    return MetaServiceSwitch.eachMethod(descriptor, method -> ServerCalls.asyncUnaryCall((request, out) -> out.onError(
        RangeKvErrors.toStatusException(RangeKvErrors.notLeader(0, "", leaderAddress.get(), true)))));
  }
}
