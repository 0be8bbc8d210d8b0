package dev.rangekv.server.split;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.admin.SplitRangeResponse;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.StoreOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SplitProposerTest {
  private static final RangeDescriptor RANGE = new RangeDescriptor(7, Key.utf8("b"), RangeEnd.at(Key.utf8("m")),
      List.of("n1"), 3);
  private static final RangeHeader HEADER = RangeHeader.newBuilder().setRangeId(7).setGeneration(3).build();

  @TempDir Path dir;

  /** A leader of {@link #RANGE} that records what it proposes and answers each proposal as applied. */
  private static final class Leader implements SplitHost {
    final List<RangeCommand> proposed = new ArrayList<>();
    Optional<RangeKvError> refusal = Optional.empty();

    @Override
    public Optional<RangeDescriptor> descriptor(long rangeId) {
      return rangeId == RANGE.rangeId() ? Optional.of(RANGE) : Optional.empty();
    }

    @Override
    public List<RaftReplica> peers(long rangeId) {
      return List.of(RaftReplica.newBuilder().setNodeId("n1").build());
    }

    @Override
    public Optional<RangeKvError> leaderOrRefusal(long rangeId) {
      return refusal;
    }

    @Override
    public synchronized CompletableFuture<CommandResult> propose(RangeCommand cmd) {
      proposed.add(cmd);
      return CompletableFuture.completedFuture(CommandResult.newBuilder().setSplit(SplitRangeResponse.newBuilder()
          .setRight(dev.rangekv.proto.RangeDescriptorProto.newBuilder()
              .setRangeId(cmd.getSplit().getChildRangeId()))).build());
    }
  }

  private static RangeIdSource counting(AtomicInteger asked, long id) {
    return () -> {
      asked.incrementAndGet();
      return CompletableFuture.completedFuture(id);
    };
  }

  @Test
  void aRequestNamingNoChildId_proposesAGrantedOne() {
    Leader leader = new Leader();
    AtomicInteger asked = new AtomicInteger();
    try (NodeStore store = NodeStore.open(dir, StoreOptions.defaults())) {
      List<SplitRangeResponse> told = new ArrayList<>();
      SplitRangeResponse r = new SplitProposer(leader, store, counting(asked, 12), told::add)
          .split(HEADER, ByteString.copyFromUtf8("f"), 0).join();
      assertThat(asked).hasValue(1);
      assertThat(r.getRight().getRangeId()).isEqualTo(12);
      assertThat(told).containsExactly(r);
      assertThat(leader.proposed).singleElement().satisfies(c -> {
        assertThat(c.getHeader()).isEqualTo(HEADER);
        assertThat(c.getSplit().getChildRangeId()).isEqualTo(12);
        assertThat(c.getSplit().getSplitKey().toStringUtf8()).isEqualTo("f");
      });
    }
  }

  @Test
  void aRequestNamingAChildId_proposesIt_withoutAskingForOne() {
    Leader leader = new Leader();
    AtomicInteger asked = new AtomicInteger();
    try (NodeStore store = NodeStore.open(dir, StoreOptions.defaults())) {
      new SplitProposer(leader, store, counting(asked, 12), r -> { })
          .split(HEADER, ByteString.copyFromUtf8("f"), 30).join();
      assertThat(asked).hasValue(0);
      assertThat(leader.proposed.get(0).getSplit().getChildRangeId()).isEqualTo(30);
    }
  }

  @Test
  void noGrantedId_failsTyped_andProposesNothing() {
    Leader leader = new Leader();
    RangeIdSource down = () -> CompletableFuture.failedFuture(new SplitRefusedException(
        RangeKvErrors.unavailable("meta range unavailable", true)));
    try (NodeStore store = NodeStore.open(dir, StoreOptions.defaults())) {
      CompletableFuture<SplitRangeResponse> f = new SplitProposer(leader, store, down, r -> { })
          .split(HEADER, ByteString.copyFromUtf8("f"), 0);
      assertThat(refusal(f).hasUnavailable()).isTrue();
      assertThat(leader.proposed).isEmpty();

      CompletableFuture<SplitRangeResponse> none = new SplitProposer(leader, store, RangeIdSource.absent(), r -> { })
          .split(HEADER, ByteString.copyFromUtf8("f"), 0);
      assertThat(refusal(none).getInvalidArgument().getLimit()).isEqualTo("child_range_id");
      assertThat(leader.proposed).isEmpty();
    }
  }

  @Test
  void aFollower_refusesBeforeAnIdIsGranted() {
    Leader follower = new Leader();
    follower.refusal = Optional.of(RangeKvErrors.notLeader(7, "n2", "h:2", true));
    AtomicInteger asked = new AtomicInteger();
    try (NodeStore store = NodeStore.open(dir, StoreOptions.defaults())) {
      CompletableFuture<SplitRangeResponse> f = new SplitProposer(follower, store, counting(asked, 12), r -> { })
          .split(HEADER, ByteString.copyFromUtf8("f"), 0);
      assertThat(refusal(f).hasNotLeader()).isTrue();
      assertThat(asked).hasValue(0);
      assertThat(follower.proposed).isEmpty();
    }
  }

  @Test
  void badSplits_areRefused_beforeProposing() {
    Leader leader = new Leader();
    try (NodeStore store = NodeStore.open(dir, StoreOptions.defaults())) {
      SplitProposer p = new SplitProposer(leader, store, counting(new AtomicInteger(), 12), r -> { });
      assertThat(refusal(p.split(HEADER, ByteString.copyFromUtf8("b"), 0)).getInvalidArgument().getLimit())
          .isEqualTo("split_key");
      assertThat(refusal(p.split(HEADER, ByteString.copyFromUtf8("f"), 7)).getInvalidArgument().getLimit())
          .isEqualTo("child_range_id");
      assertThat(refusal(p.split(RangeHeader.newBuilder().setRangeId(8).build(), ByteString.copyFromUtf8("f"), 0))
          .hasRangeNotFound()).isTrue();
      assertThat(leader.proposed).isEmpty();
    }
  }

  private static RangeKvError refusal(CompletableFuture<?> f) {
    try {
      f.join();
    } catch (CompletionException e) {
      assertThat(e.getCause()).isInstanceOf(SplitRefusedException.class);
      return ((SplitRefusedException) e.getCause()).error();
    }
    throw new AssertionError("the split was not refused");
  }
}
