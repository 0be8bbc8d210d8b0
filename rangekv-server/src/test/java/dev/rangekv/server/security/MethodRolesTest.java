package dev.rangekv.server.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.proto.KvServiceGrpc;
import dev.rangekv.proto.MetaServiceGrpc;
import dev.rangekv.proto.admin.NodeAdminServiceGrpc;
import dev.rangekv.proto.meta.MetaNodeServiceGrpc;
import dev.rangekv.proto.replica.ClusterIdentityServiceGrpc;
import dev.rangekv.proto.replica.ReplicaServiceGrpc;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MethodRolesTest {
  @Test
  void internalServices_needANode() {
    for (MethodDescriptor<?, ?> m : ReplicaServiceGrpc.getServiceDescriptor().getMethods()) {
      assertThat(MethodRoles.needed(m.getFullMethodName())).as(m.getFullMethodName()).isEqualTo(Role.NODE);
    }
    for (ServiceDescriptor s : Set.of(MetaNodeServiceGrpc.getServiceDescriptor(), NodeAdminServiceGrpc.getServiceDescriptor())) {
      s.getMethods().forEach(m -> assertThat(MethodRoles.needed(m.getFullMethodName())).as(m.getFullMethodName())
          .isEqualTo(Role.NODE));
    }
  }

  @Test
  void clusterChanges_needTheAdminRole_andReadsAnyCertificate() {
    for (MethodDescriptor<?, ?> m : Set.of(MetaServiceGrpc.getSplitMethod(), MetaServiceGrpc.getMergeMethod(),
        MetaServiceGrpc.getMoveMethod(), MetaServiceGrpc.getPreSplitMethod(), MetaServiceGrpc.getRemoveNodeMethod(),
        MetaServiceGrpc.getSetPlacementMethod(), MetaServiceGrpc.getRemovePlacementMethod())) {
      assertThat(MethodRoles.needed(m.getFullMethodName())).as(m.getFullMethodName()).isEqualTo(Role.ADMIN);
    }
    for (ServiceDescriptor s : Set.of(KvServiceGrpc.getServiceDescriptor(), ClusterIdentityServiceGrpc.getServiceDescriptor())) {
      s.getMethods().forEach(m -> assertThat(MethodRoles.needed(m.getFullMethodName())).isEqualTo(Role.CLIENT));
    }
    assertThat(MethodRoles.needed(MetaServiceGrpc.getLookupMethod().getFullMethodName())).isEqualTo(Role.CLIENT);
    assertThat(MethodRoles.needed(MetaServiceGrpc.getListNodesMethod().getFullMethodName())).isEqualTo(Role.CLIENT);
    assertThat(MethodRoles.needed(MetaServiceGrpc.getListPlacementMethod().getFullMethodName())).isEqualTo(Role.CLIENT);
    assertThat(MethodRoles.needed("grpc.health.v1.Health/Check")).isEqualTo(Role.CLIENT);
  }

  @Test
  void rolesOfPeers() {
    PeerIdentity node = new PeerIdentity("node", true);
    PeerIdentity root = new PeerIdentity("root", false);
    PeerIdentity alice = new PeerIdentity("alice", false);
    assertThat(node.has(Role.NODE) && node.has(Role.ADMIN) && node.has(Role.CLIENT)).isTrue();
    assertThat(root.has(Role.ADMIN)).isTrue();
    assertThat(root.has(Role.NODE)).isFalse();
    assertThat(alice.has(Role.CLIENT)).isTrue();
    assertThat(alice.has(Role.ADMIN) || alice.has(Role.NODE)).isFalse();
  }
}
