package dev.rangekv.client.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReplicaChooserTest {
  @Test
  void theLeaderGoesFirst_thenReplicasInOrder_skippingFailedNodes() {
    List<String> replicas = List.of("n1", "n2", "n3");
    assertThat(ReplicaChooser.next(replicas, "n2", Set.of())).contains("n2");
    assertThat(ReplicaChooser.next(replicas, "", Set.of())).contains("n1");
    assertThat(ReplicaChooser.next(replicas, "n2", Set.of("n2"))).contains("n1");
    assertThat(ReplicaChooser.next(replicas, "n2", Set.of("n1", "n2"))).contains("n3");
    assertThat(ReplicaChooser.next(replicas, "n2", Set.of("n1", "n2", "n3"))).isEmpty();
  }
}
