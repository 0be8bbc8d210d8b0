package dev.rangekv.server.security;

import dev.rangekv.proto.MetaServiceGrpc;
import dev.rangekv.proto.NodeAdminServiceGrpc;
import dev.rangekv.proto.replica.ReplicaServiceGrpc;
import java.util.Set;

/**
 * Which {@link Role} each gRPC method of the client port needs: internal services (replica moves, node
 * registration, heartbeats, descriptor reports, node admin) need a node; cluster changes need the admin
 * role; everything else (KV, meta reads, health, reflection, cluster identity) any certificate of the CA.
 */
public final class MethodRoles {
  private static final Set<String> NODE_ONLY = Set.of(
      MetaServiceGrpc.getRegisterNodeMethod().getFullMethodName(),
      MetaServiceGrpc.getHeartbeatMethod().getFullMethodName(),
      MetaServiceGrpc.getReportDescriptorsMethod().getFullMethodName());
  private static final Set<String> ADMIN = Set.of(
      MetaServiceGrpc.getSplitMethod().getFullMethodName(),
      MetaServiceGrpc.getMergeMethod().getFullMethodName(),
      MetaServiceGrpc.getMoveMethod().getFullMethodName(),
      MetaServiceGrpc.getPreSplitMethod().getFullMethodName(),
      MetaServiceGrpc.getRemoveNodeMethod().getFullMethodName());
  /** The one node admin call clients make: listing a node's ranges to refresh their routes (a read). */
  private static final String LIST_RANGES = NodeAdminServiceGrpc.getListRangesMethod().getFullMethodName();

  private MethodRoles() {
  }

  /** The role {@code fullMethodName} ("package.Service/Method") needs. */
  public static Role needed(String fullMethodName) {
    if (NODE_ONLY.contains(fullMethodName)) {
      return Role.NODE;
    }
    if (ADMIN.contains(fullMethodName)) {
      return Role.ADMIN;
    }
    String service = fullMethodName.substring(0, Math.max(0, fullMethodName.indexOf('/')));
    if (service.equals(ReplicaServiceGrpc.SERVICE_NAME)
        || service.equals(NodeAdminServiceGrpc.SERVICE_NAME) && !fullMethodName.equals(LIST_RANGES)) {
      return Role.NODE;
    }
    return Role.CLIENT;
  }
}
