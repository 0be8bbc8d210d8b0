package dev.rangekv.server.security;

import dev.rangekv.proto.MetaServiceGrpc;
import dev.rangekv.proto.admin.NodeAdminServiceGrpc;
import dev.rangekv.proto.meta.MetaNodeServiceGrpc;
import dev.rangekv.proto.replica.ReplicaServiceGrpc;
import java.util.Set;

/**
 * Which {@link Role} each gRPC method of the client port needs: internal services (replica moves, node
 * registration, heartbeats, descriptor reports, node admin) need a node; cluster changes (split, merge,
 * move, pre-split, node removal, placement rules) need the admin role; everything else (KV and a node's
 * replica listing, meta reads, health, reflection, cluster identity) any certificate of the CA.
 */
public final class MethodRoles {
  /** Services only nodes call: replica moves, node admin, what nodes report to the meta range. */
  private static final Set<String> NODE_SERVICES = Set.of(
      ReplicaServiceGrpc.SERVICE_NAME,
      NodeAdminServiceGrpc.SERVICE_NAME,
      MetaNodeServiceGrpc.SERVICE_NAME);
  private static final Set<String> ADMIN = Set.of(
      MetaServiceGrpc.getSplitMethod().getFullMethodName(),
      MetaServiceGrpc.getMergeMethod().getFullMethodName(),
      MetaServiceGrpc.getMoveMethod().getFullMethodName(),
      MetaServiceGrpc.getPreSplitMethod().getFullMethodName(),
      MetaServiceGrpc.getRemoveNodeMethod().getFullMethodName(),
      MetaServiceGrpc.getSetPlacementMethod().getFullMethodName(),
      MetaServiceGrpc.getRemovePlacementMethod().getFullMethodName());

  /** Backup and restore read and replace whole ranges: the admin role. */
  private static final Set<String> ADMIN_SERVICES = Set.of(dev.rangekv.proto.backup.BackupServiceGrpc.SERVICE_NAME);

  private MethodRoles() {
  }

  /** The role {@code fullMethodName} ("package.Service/Method") needs. */
  public static Role needed(String fullMethodName) {
    String service = fullMethodName.substring(0, Math.max(0, fullMethodName.indexOf('/')));
    if (NODE_SERVICES.contains(service)) {
      return Role.NODE;
    }
    if (ADMIN.contains(fullMethodName) || ADMIN_SERVICES.contains(service)) {
      return Role.ADMIN;
    }
    return Role.CLIENT;
  }
}
