package dev.rangekv.server.raft;

import dev.rangekv.server.raft.ProposalBuffers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class ProposalBuffersLimitsTest {
  @Test
  void withoutOverrides_theDefaultsHold() {
    assertThat(ProposalBuffers.Limits.forNode(0, new Properties())).isEqualTo(ProposalBuffers.Limits.defaults());
  }

  @Test
  void eachOverrideReplacesOnlyItsOwnBound() {
    Properties system = new Properties();
    system.setProperty("rangekv.proposals.maxInFlight", "2");
    system.setProperty("rangekv.proposals.maxBytes", "4096");
    system.setProperty("rangekv.proposals.maxNodeInFlight", "3");
    system.setProperty("rangekv.ratis.raft.server.log.force.sync.num", "16");

    ProposalBuffers.Limits d = ProposalBuffers.Limits.defaults();
    assertThat(ProposalBuffers.Limits.forNode(0, system)).isEqualTo(new ProposalBuffers.Limits(2, d.maxWrites(), 4096, 3, d.stallMillis()));
  }

  @Test
  void aNodeSetting_boundsTheNode_andZeroMeansNoBound() {
    ProposalBuffers.Limits d = ProposalBuffers.Limits.defaults();
    assertThat(ProposalBuffers.Limits.forNode(0, new Properties())).isEqualTo(d);
    assertThat(ProposalBuffers.Limits.forNode(2, new Properties())).isEqualTo(d.withMaxNodeInFlight(2));
    assertThatThrownBy(() -> ProposalBuffers.Limits.forNode(-1, new Properties()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nodeEntriesInFlight");
  }

  @Test
  void anExperimentsOverride_winsOverTheNodeSetting() {
    Properties system = new Properties();
    system.setProperty("rangekv.proposals.maxNodeInFlight", "3");
    assertThat(ProposalBuffers.Limits.forNode(1, system).maxNodeInFlight()).isEqualTo(3);
  }
}
