package dev.rangekv.server.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.server.node.RaftTuning;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.junit.jupiter.api.Test;

class RatisPropertiesTest {
  @Test
  void overridesTakeTheRatisKeyAfterThePrefixAndIgnoreOtherProperties() {
    Properties system = new Properties();
    system.setProperty("rangekv.ratis.raft.server.log.force.sync.num", "16");
    system.setProperty("rangekv.ratis.", "ignored: no key");
    system.setProperty("rangekv.seed", "7");
    system.setProperty("raft.server.log.force.sync.num", "99");

    assertThat(RatisProperties.overrides(system)).containsExactly(java.util.Map.entry("raft.server.log.force.sync.num", "16"));
  }

  @Test
  void anOverrideWinsOverTheTuning() {
    String key = RatisProperties.OVERRIDE_PREFIX + RaftServerConfigKeys.Log.FORCE_SYNC_NUM_KEY;
    String before = System.getProperty(key);
    System.setProperty(key, "16");
    try {
      RaftProperties p = RatisProperties.of(RaftTuning.defaults().engine(), Path.of("/tmp/unused"), "127.0.0.1", 0);
      assertThat(RaftServerConfigKeys.Log.forceSyncNum(p)).isEqualTo(16);
    } finally {
      if (before == null) {
        System.clearProperty(key);
      } else {
        System.setProperty(key, before);
      }
    }
    RaftProperties p = RatisProperties.of(RaftTuning.defaults().engine(), Path.of("/tmp/unused"), "127.0.0.1", 0);
    assertThat(RaftServerConfigKeys.Log.forceSyncNum(p)).isEqualTo(RaftServerConfigKeys.Log.FORCE_SYNC_NUM_DEFAULT);
  }

  @Test
  void aLeaderThatLostItsMajority_standsAgainAfterAnElectionTimeout_andRetriesAFailingFollowerEveryHeartbeat() {
    RaftProperties p = RatisProperties.of(RaftTuning.forTests().engine(), Path.of("/tmp/unused"), "127.0.0.1", 0);
    assertThat(RaftServerConfigKeys.LeaderElection.leaderStepDownWaitTime(p).toLong(java.util.concurrent.TimeUnit.MILLISECONDS))
        .isEqualTo(RaftTuning.forTests().rpcTimeoutMax().toMillis());
    org.apache.ratis.retry.RetryPolicy retry = org.apache.ratis.retry.RetryPolicy.parse(
        RaftServerConfigKeys.Log.Appender.retryPolicy(p), RaftServerConfigKeys.Log.Appender.RETRY_POLICY_KEY);
    long heartbeat = RaftTuning.forTests().rpcTimeoutMin().toMillis() / 2;
    // the sleep is drawn uniformly around the configured one: at most 1.5 heartbeat intervals
    assertThat(retry.handleAttemptFailure(() -> 10_000).getSleepTime().toLong(java.util.concurrent.TimeUnit.MILLISECONDS))
        .isBetween(heartbeat / 2, heartbeat * 3 / 2);
  }
}
