package dev.rangekv.client.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.client.AmbiguousResultException;
import dev.rangekv.client.ClientOptions;
import dev.rangekv.client.DeadlineExceededException;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.RetriesExhaustedException;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.PutRequest;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.convert.RangeKvErrors;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The retry loop against scripted nodes: bounds, write ids, ambiguity, adversarial answers. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RouterTest {
  static final List<String> NODES = List.of("fake");
  static final RangeDescriptor ROOT = new RangeDescriptor(1, Key.EMPTY, RangeEnd.INFINITY, NODES, 4);

  static ClientOptions fast() {
    return ClientOptions.defaults().withTimeout(Duration.ofSeconds(20))
        .withRetry(new RetryPolicy(10, Duration.ofMillis(1), Duration.ofMillis(5)));
  }

  @Test
  void anUnknownOutcome_isRetriedWithTheSameWriteId_andSucceedsOnce() throws Exception {
    try (FakeNode node = new FakeNode()) {
      node.listed = List.of(ROOT);
      AtomicInteger calls = new AtomicInteger();
      node.putScript = r -> calls.incrementAndGet() == 1 ? RangeKvErrors.unavailable("timed out", false) : null;
      try (RangeKvClient client = RangeKvClient.connect(List.of(node.address()), fast())) {
        client.put(Key.utf8("k"), "v".getBytes());
      }
      assertThat(node.puts).hasSize(2);
      assertThat(node.puts.get(0).getWriteId()).isEqualTo(node.puts.get(1).getWriteId());
    }
  }

  @Test
  void anOutcomeUnknownUntilTheBound_isAmbiguous_neverADefiniteFailure_andKeepsItsWriteId() throws Exception {
    try (FakeNode node = new FakeNode()) {
      node.listed = List.of(ROOT);
      AtomicInteger calls = new AtomicInteger();
      // first unknown, then definite refusals: the first attempt may still have applied
      node.putScript = r -> calls.incrementAndGet() == 1
          ? RangeKvErrors.unavailable("timed out", false)
          : RangeKvErrors.unavailable("no leader", true);
      try (RangeKvClient client = RangeKvClient.connect(List.of(node.address()), fast())) {
        assertThatThrownBy(() -> client.put(Key.utf8("k"), "v".getBytes()))
            .isInstanceOf(AmbiguousResultException.class)
            .hasMessageContaining("attempts=10");
      }
      assertThat(node.puts).hasSize(10);
      assertThat(node.puts.stream().map(PutRequest::getWriteId).distinct()).hasSize(1);
    }
  }

  @Test
  void definiteRefusalsUntilTheBound_areRetriesExhausted() throws Exception {
    try (FakeNode node = new FakeNode()) {
      node.listed = List.of(ROOT);
      node.putScript = r -> RangeKvErrors.unavailable("no leader", true);
      try (RangeKvClient client = RangeKvClient.connect(List.of(node.address()), fast())) {
        assertThatThrownBy(() -> client.put(Key.utf8("k"), "v".getBytes()))
            .isInstanceOf(RetriesExhaustedException.class)
            .satisfies(e -> assertThat(((RetriesExhaustedException) e).attempts()).isEqualTo(10));
      }
      assertThat(node.puts).hasSize(10);
    }
  }

  @Test
  void anAdversarialNode_answeringGarbageNews_endsInAClearErrorWithinTheBound() throws Exception {
    try (FakeNode node = new FakeNode()) {
      node.listed = List.of(ROOT);
      AtomicInteger gen = new AtomicInteger(10);
      // every answer claims a newer, overlapping, differently cut map that again points at this node
      node.getScript = r -> {
        int g = gen.incrementAndGet();
        RangeDescriptor a = new RangeDescriptor(100 + g, Key.EMPTY, RangeEnd.at(Key.utf8("z" + g)), NODES, g);
        RangeDescriptor b = new RangeDescriptor(200 + g, Key.utf8("z" + g), RangeEnd.INFINITY, NODES, g);
        return RangeKvErrors.rangeMoved(List.of(ProtoValues.descriptor(a, n -> node.address()),
            ProtoValues.descriptor(b, n -> node.address())), "moved");
      };
      try (RangeKvClient client = RangeKvClient.connect(List.of(node.address()), fast())) {
        assertThatThrownBy(() -> client.get(Key.utf8("k")))
            .isInstanceOf(RetriesExhaustedException.class)
            .hasMessageContaining("retry bound reached")
            .hasMessageContaining("key=\"k\"")
            .hasMessageContaining("RangeMoved");
      }
      assertThat(node.gets).hasSize(10);
    }
  }

  @Test
  void aNotLeaderHint_sendsTheRetryToTheHintedNode() throws Exception {
    try (FakeNode follower = new FakeNode(); FakeNode leader = new FakeNode()) {
      RangeDescriptor two = new RangeDescriptor(1, Key.EMPTY, RangeEnd.INFINITY, List.of("f", "l"), 4);
      follower.listed = List.of(two);
      follower.putScript = r -> RangeKvErrors.notLeader(1, "l", leader.address(), true);
      try (RangeKvClient client = RangeKvClient.connect(List.of(follower.address()), fast())) {
        // the follower lists itself under both ids; the hint carries the leader's real address
        client.put(Key.utf8("k"), "v".getBytes());
        assertThat(client.routeTable().leader(1)).isEqualTo("l");
      }
      assertThat(follower.puts).hasSize(1);
      assertThat(leader.puts).hasSize(1);
    }
  }


  /** The default attempt cap with millisecond backoff: what a call does under churn, fast. */
  static ClientOptions churnPatient(Duration timeout) {
    return ClientOptions.defaults().withTimeout(timeout)
        .withRetry(new RetryPolicy(RetryPolicy.DEFAULT_MAX_ATTEMPTS, Duration.ofMillis(1), Duration.ofMillis(5)));
  }

  @Test
  void aLeaderSteppingDownLongerThanTheOldTenAttempts_costsLatency_notAnError() throws Exception {
    try (FakeNode node = new FakeNode()) {
      node.listed = List.of(ROOT);
      AtomicInteger calls = new AtomicInteger();
      // 30 refusals in a row: stepping down, then no leader known, then the range still starting
      node.putScript = r -> {
        int n = calls.incrementAndGet();
        return n <= 10 ? RangeKvErrors.unavailable("LeaderSteppingDownException: stepping down", true)
            : n <= 20 ? RangeKvErrors.notLeader(1, "", "", true)
            : n <= 30 ? RangeKvErrors.unavailable("range 1 is not ready on this node", true) : null;
      };
      try (RangeKvClient client = RangeKvClient.connect(List.of(node.address()), churnPatient(Duration.ofSeconds(20)))) {
        client.put(Key.utf8("k"), "v".getBytes());
      }
      assertThat(node.puts).hasSize(31);
    }
  }

  @Test
  void refusalsThatNeverEnd_endAtTheDeadline_notAtAnAttemptCount() throws Exception {
    try (FakeNode node = new FakeNode()) {
      node.listed = List.of(ROOT);
      node.putScript = r -> RangeKvErrors.notLeader(1, "", "", true);
      ClientOptions options = ClientOptions.defaults().withTimeout(Duration.ofSeconds(1))
          .withRetry(new RetryPolicy(RetryPolicy.DEFAULT_MAX_ATTEMPTS, Duration.ofMillis(10), Duration.ofMillis(50)));
      try (RangeKvClient client = RangeKvClient.connect(List.of(node.address()), options)) {
        // the deadline ends it either between attempts (nothing in flight: a clean deadline) or during the
        // last attempt, sent with a few ms left (its outcome unknown: ambiguous); which one is timing
        assertThatThrownBy(() -> client.put(Key.utf8("k"), "v".getBytes()))
            .isInstanceOfAny(DeadlineExceededException.class, AmbiguousResultException.class);
      }
      // backoff of at least 5 ms a time: the 1 s deadline, not the cap, ended it
      assertThat(node.puts.size()).isGreaterThan(1).isLessThan(RetryPolicy.DEFAULT_MAX_ATTEMPTS);
    }
  }
}
