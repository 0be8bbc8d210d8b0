package dev.rangekv.server.split;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.proto.replica.SplitCommand;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.RangeLocalState;
import dev.rangekv.storage.StoreOptions;
import dev.rangekv.storage.WriteBatchBuilder;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SplitApplierTest {
  @TempDir Path dir;

  @Test
  void split_shrinksParent_recordsChild_copiesDedupe_andReplayNeverOverwritesTheChild() {
    try (NodeStore store = NodeStore.open(dir, StoreOptions.defaults())) {
      RangeDescriptor parent = new RangeDescriptor(1, Key.EMPTY, RangeEnd.INFINITY, List.of("n1", "n2"), 4);
      try (WriteBatchBuilder b = store.newBatch()) {
        b.putRangeState(new RangeLocalState(parent, 1, 10)).localPut(1, "dedupe/aa", new byte[] {1});
        store.write(b);
      }
      SplitCommand split = SplitCommand.newBuilder().setSplitKey(ByteString.copyFromUtf8("m")).setChildRangeId(42)
          .addPeers(RaftReplica.newBuilder().setNodeId("n1").setClientAddress("h:1"))
          .addPeers(RaftReplica.newBuilder().setNodeId("n2").setClientAddress("h:2"))
          .build();
      SplitApplier.SplitOutcome out;
      try (WriteBatchBuilder b = store.newBatch()) {
        out = SplitApplier.apply(store, parent, split, 1, 11, b);
        store.write(b);
      }
      assertThat(out.parent().end()).isEqualTo(RangeEnd.at(Key.utf8("m")));
      assertThat(out.parent().generation()).isEqualTo(5);
      assertThat(store.rangeState(1).orElseThrow().appliedIndex()).isEqualTo(11);
      RangeLocalState child = store.rangeState(42).orElseThrow();
      assertThat(child.descriptor().start()).isEqualTo(Key.utf8("m"));
      assertThat(child.descriptor().end()).isEqualTo(RangeEnd.INFINITY);
      assertThat(child.descriptor().generation()).isEqualTo(5);
      assertThat(child.appliedIndex()).isZero();
      assertThat(store.localGet(42, "dedupe/aa")).isPresent();
      assertThat(SplitApplier.children(store, 1)).containsExactly(42L);
      assertThat(out.result().getSplit().getRight().getReplicas(1).getAddress()).isEqualTo("h:2");

      // the child moves on (splits again); a replay of the parent's split must not reset it
      RangeDescriptor movedOn = child.descriptor().withSpan(Key.utf8("m"), RangeEnd.at(Key.utf8("t")), 6);
      try (WriteBatchBuilder b = store.newBatch()) {
        b.putRangeState(new RangeLocalState(movedOn, 2, 7));
        store.write(b);
      }
      try (WriteBatchBuilder b = store.newBatch()) {
        SplitApplier.apply(store, parent, split, 1, 11, b);
        store.write(b);
      }
      assertThat(store.rangeState(42).orElseThrow().descriptor()).isEqualTo(movedOn);
      assertThat(SplitApplier.children(store, 1)).containsExactly(42L);
      assertThat(out.childBornDormant()).as("a split that did not ask for a dormant child").isFalse();
    }
  }

  @Test
  void aSplitAskingForADormantChild_saysSoWhenItRecordsTheChild_butNotOnReplay() {
    try (NodeStore store = NodeStore.open(dir, StoreOptions.defaults())) {
      RangeDescriptor parent = new RangeDescriptor(1, Key.EMPTY, RangeEnd.INFINITY, List.of("n1"), 4);
      try (WriteBatchBuilder b = store.newBatch()) {
        b.putRangeState(new RangeLocalState(parent, 1, 10));
        store.write(b);
      }
      SplitCommand split = SplitCommand.newBuilder().setSplitKey(ByteString.copyFromUtf8("m")).setChildRangeId(42)
          .addPeers(RaftReplica.newBuilder().setNodeId("n1").setClientAddress("h:1")).setChildDormant(true).build();
      SplitApplier.SplitOutcome first;
      try (WriteBatchBuilder b = store.newBatch()) {
        first = SplitApplier.apply(store, parent, split, 1, 11, b);
        store.write(b);
      }
      assertThat(first.childBornDormant()).isTrue();
      // a replay meets the child's record: the child may have woken since, so its mark is left alone
      SplitApplier.SplitOutcome replay;
      try (WriteBatchBuilder b = store.newBatch()) {
        replay = SplitApplier.apply(store, parent, split, 1, 11, b);
        store.write(b);
      }
      assertThat(replay.childBornDormant()).isFalse();
    }
  }
}
