package dev.rangekv.server.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.google.protobuf.ByteString;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.rangemap.RangeIds;
import dev.rangekv.proto.AdminSplitRequest;
import dev.rangekv.proto.GetMapRequest;
import dev.rangekv.proto.PreSplitRequest;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.admin.NodeAdminServiceGrpc;
import dev.rangekv.proto.admin.SplitRangeRequest;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.server.meta.MetaLocator;
import dev.rangekv.server.move.NodeAdminClient;
import dev.rangekv.server.raft.PeerChannels;
import dev.rangekv.testkit.Await;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Range ids come from the meta range (docs/decisions/0003-range-ids-from-the-meta-range.md): splits through the controller (admin split and
 * pre-split: the operator names the child id from its grant) and straight at a range's leader without
 * an id (the leader asks the meta range) give small, unique, increasing ids, and a split retried at the
 * parent's old generation creates no second child.
 */
class RangeIdsIT {
  @TempDir Path dir;

  @Test
  @Timeout(300)
  void everySplit_getsASmallNewId_fromTheMetaRange() throws Exception {
    // the controller runs every split it is told to, but starts none of its own, merges nothing (min-bytes
    // 0: the splits straight at a leader log no split event, so no merge cooldown kept two of those small
    // cold ranges from merging back under a loaded verify) and moves nothing
    ControllerConfig quiet = ControllerConfig.builder().tickMillis(500).maxBytes(1L << 40).minBytes(0).splitQps(1e9)
        .maxLeaderTransfers(0).build();
    try (LocalCluster cluster = LocalCluster.start(3, dir, RaftTuning.forTests(), quiet);
        PeerChannels channels = new PeerChannels();
        NodeAdminClient admin = new NodeAdminClient(MoveIT.seeds(cluster), Duration.ofSeconds(60))) {
      MetaLocator meta = new MetaLocator(channels, () -> MoveIT.seeds(cluster));
      List<Long> children = new ArrayList<>();
      for (String at : List.of("b", "d", "f")) {
        children.add(adminSplitWhenReady(meta, at).getRight().getRangeId());
      }
      // straight at the leader, naming no child id: the leader asks the meta range for one. Each key lies
      // in the previous split's right half (the meta map learns of these splits a heartbeat later)
      RangeDescriptorProto right = rangeAt(meta, "h");
      RangeDescriptorProto lastParent = right;
      for (String at : List.of("h", "j", "l")) {
        lastParent = right; // the split runs at this descriptor's generation: nothing else changes the range
        right = splitWhenReady(admin, right.getRangeId(), at).getRight();
        children.add(right.getRangeId());
      }

      // the last split retried (same parent, generation and key): refused, no second child
      RangeDescriptorProto parent = lastParent;
      NodeAdminClient.Located leader = Await.value(Duration.ofSeconds(30), "the leader of the split range",
          () -> admin.locate(parent.getRangeId()).filter(x -> !x.leaderAddress().isEmpty()));
      StatusRuntimeException stale = (StatusRuntimeException) catchThrowable(() -> NodeAdminServiceGrpc
          .newBlockingStub(channels.channel(leader.leaderAddress())).withDeadlineAfter(30, TimeUnit.SECONDS)
          .splitRange(SplitRangeRequest.newBuilder().setHeader(RangeHeader.newBuilder()
              .setRangeId(parent.getRangeId()).setGeneration(parent.getGeneration())).setSplitKey(utf8("l")).build()));
      assertThat(stale).isNotNull();
      RangeKvError refused = RangeKvErrors.fromThrowable(stale).orElseThrow();
      assertThat(refused.getDefinitelyNotApplied()).isTrue();
      assertThat(refused.hasRangeMoved()).as("refused: %s", refused).isTrue();
      // the pre-split plans from the meta map: wait until it holds every range made so far, not just as
      // many (a map still routing "r" to r7's remnant, before r10's first report, planned a split of r7)
      List<Long> made = new ArrayList<>(children);
      made.add(RangeIds.ROOT);
      Await.until(Duration.ofSeconds(60), "the meta map holds r1 and every child " + children,
          () -> new HashSet<>(mapIds(meta)).equals(new HashSet<>(made))
              && rangeAt(meta, "r").getRangeId() == children.get(children.size() - 1));

      List<Long> before = List.copyOf(children);
      List<Long> presplit = meta.change(s -> s.preSplit(PreSplitRequest.newBuilder()
          .addSplitKeys(utf8("p")).addSplitKeys(utf8("r")).addSplitKeys(utf8("t")).build()), Duration.ofSeconds(120))
          .getRangesList().stream().map(RangeDescriptorProto::getRangeId).filter(id -> !before.contains(id)).toList();
      assertThat(presplit).hasSize(3).allSatisfy(id -> assertThat(id).isGreaterThan(before.get(before.size() - 1)));
      children.addAll(presplit);

      assertThat(before).as("child ids in split order").isSorted();
      assertThat(children).doesNotHaveDuplicates()
          .allSatisfy(id -> assertThat(id).isBetween(RangeIds.FIRST_GRANTED, 999L));
      List<Long> ids = awaitMapOf(meta, 10);
      assertThat(new HashSet<>(ids)).hasSize(10).contains(RangeIds.ROOT).containsAll(children);
      assertThat(ids).allSatisfy(id -> assertThat(id).isBetween(RangeIds.ROOT, 999L));
    }
  }

  /**
   * Splits a just-created child: its first leader may answer a retryable UNAVAILABLE (elected, not ready
   * yet; nothing proposed) for a moment, so those answers are retried up to a bound.
   */
  private static dev.rangekv.proto.admin.SplitRangeResponse splitWhenReady(NodeAdminClient admin, long rangeId,
      String at) {
    return Await.value(Duration.ofSeconds(30), "a split of range " + rangeId + " at " + at, () -> {
      try {
        return java.util.Optional.of(admin.split(rangeId, utf8(at)));
      } catch (StatusRuntimeException e) {
        RangeKvError error = RangeKvErrors.fromThrowable(e).orElseThrow(() -> e);
        if (error.hasUnavailable() && error.getDefinitelyNotApplied()) {
          return java.util.Optional.empty();
        }
        throw e;
      }
    });
  }

  /**
   * An admin split through the meta range, retried while it fails unavailable (a step to a node whose
   * channel was not up yet in a just-started cluster cancels the split with nothing applied).
   */
  private static dev.rangekv.proto.AdminSplitResponse adminSplitWhenReady(MetaLocator meta, String at) {
    return Await.value(Duration.ofSeconds(60), "an admin split at " + at, () -> {
      try {
        return java.util.Optional.of(meta.change(s -> s.split(AdminSplitRequest.newBuilder().setSplitKey(utf8(at))
            .build()), Duration.ofSeconds(30)));
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() == io.grpc.Status.Code.UNAVAILABLE && e.getMessage().contains("cancelled")) {
          return java.util.Optional.empty();
        }
        throw e;
      }
    });
  }

  /** The meta map's range ids once it holds {@code n} ranges. */
  private static List<Long> awaitMapOf(MetaLocator meta, int n) {
    return Await.value(Duration.ofSeconds(60), "the meta map holds " + n + " ranges", () -> {
      List<Long> now = mapIds(meta);
      return now.size() == n ? java.util.Optional.of(now) : java.util.Optional.empty();
    });
  }

  private static List<Long> mapIds(MetaLocator meta) {
    return meta.call(s -> s.getMap(GetMapRequest.getDefaultInstance()), Duration.ofSeconds(10))
        .getRangesList().stream().map(RangeDescriptorProto::getRangeId).toList();
  }

  private static RangeDescriptorProto rangeAt(MetaLocator meta, String key) {
    return meta.call(s -> s.lookup(dev.rangekv.proto.LookupRequest.newBuilder().setKey(utf8(key)).build()),
        Duration.ofSeconds(10)).getRange();
  }

  private static ByteString utf8(String s) {
    return ByteString.copyFromUtf8(s);
  }
}
