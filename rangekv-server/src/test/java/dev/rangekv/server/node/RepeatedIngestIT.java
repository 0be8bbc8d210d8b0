package dev.rangekv.server.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.ReplicaProto;
import dev.rangekv.proto.backup.BackupFile;
import dev.rangekv.proto.backup.BackupServiceGrpc;
import dev.rangekv.proto.backup.IngestStagedRequest;
import dev.rangekv.proto.backup.StageHeader;
import dev.rangekv.proto.replica.IngestCommand;
import dev.rangekv.server.move.NodeAdminClient;
import dev.rangekv.server.raft.PeerChannels;
import dev.rangekv.server.replica.RestoreStaging;
import dev.rangekv.testcluster.ClusterRouter;
import dev.rangekv.testkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restore's ingest entry proposed twice (the CLI asks again when a leader change left the first
 * answer's outcome unknown): the second applies as a no-op on every replica, answers at once, keeps the
 * writes made in between and deletes files staged again for it. Before, a repeated overwrite entry found
 * its staged files gone on every replica, and each replica's apply waited for a peer to serve the span:
 * the range stopped applying; and one with its files staged again ingested them again, over the writes
 * made in between. A refused entry answers with its refusal (it was answered as applied). One 3-node in-JVM cluster without a meta range, about 10 s.
 */
class RepeatedIngestIT {
  @TempDir Path dir;

  @Test
  @Timeout(120)
  void anIngestProposedAgain_appliesOnce_andTheRangeKeepsApplying() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(3, dir.resolve("cluster"), RaftTuning.forTests());
        ClusterRouter router = ClusterSteps.router(cluster);
        NodeAdminClient admin = ClusterSteps.mover(cluster, Duration.ofSeconds(30))) {
      PeerChannels channels = PeerChannels.forCommand(64 << 20, Optional.empty());
      try {
        router.refresh();
        assertThat(router.get("r/000")).isEmpty(); // a linearizable read: range 1's leader is ready
        BackupFile file = RestoreDuringMoveIT.restoreFile(dir.resolve("restore"));
        Path sst = dir.resolve("restore").resolve(file.getName());

        // into the empty range, then again: the second is not refused for the data the first wrote
        stageEverywhere(channels, admin, "first", file, sst);
        assertThat(ingest(channels, admin, "first", true)).isPositive();
        assertThat(ingest(channels, admin, "first", true)).as("the same entry again").isPositive();

        // with overwrite: a write lands between the two entries, and the files are staged again
        stageEverywhere(channels, admin, "second", file, sst);
        assertThat(ingest(channels, admin, "second", false)).isPositive();
        router.put("r/000", "written after the restore");
        stageEverywhere(channels, admin, "second", file, sst);
        assertThat(ingest(channels, admin, "second", false)).as("the same entry again").isPositive();

        assertThat(router.get("r/000")).as("the write between the two entries").hasValue("written after the restore");
        assertThat(router.get("r/042")).hasValue("value-42");
        // another restore into the range, now holding data, without overwrite: refused, and said so
        stageEverywhere(channels, admin, "third", file, sst);
        assertThatThrownBy(() -> ingest(channels, admin, "third", true)).hasMessageContaining("holds data");
        router.put("after", "1");
        assertThat(router.get("after")).hasValue("1");
        for (int i = 0; i < 3; i++) {
          var store = cluster.node(i).store();
          assertThat(store.scan(Key.utf8("r/"), RangeEnd.at(Key.utf8("r0")), 1000, false)).hasSize(100);
          // a follower deletes them when it applies the repeat, which may be a moment after the leader answered
          Await.until(Duration.ofSeconds(30), "files staged again deleted on n" + (i + 1),
              () -> !Files.exists(RestoreStaging.dir(store, "second", 1)));
        }
        ClusterSteps.awaitSameStores(cluster, "every replica alike", Duration.ofSeconds(30), () -> List.of(0, 1, 2));
      } finally {
        channels.close();
      }
    }
  }

  private static void stageEverywhere(PeerChannels channels, NodeAdminClient admin, String restoreId, BackupFile file,
      Path sst) throws Exception {
    StageHeader header = StageHeader.newBuilder().setRestoreId(restoreId).setRangeId(1).addFiles(file)
        .setStart(ByteString.EMPTY).setEndInfinite(true).build();
    for (ReplicaProto r : admin.locate(1).orElseThrow().range().getReplicasList()) {
      RestoreDuringMoveIT.stage(channels, r.getAddress(), header, sst);
    }
  }

  /** Proposes range 1's ingest of {@code restoreId} through its leader; the applied index. */
  private static long ingest(PeerChannels channels, NodeAdminClient admin, String restoreId, boolean requireEmpty) {
    RangeDescriptorProto range = admin.locate(1).orElseThrow().range();
    IngestStagedRequest req = IngestStagedRequest.newBuilder()
        .setHeader(RangeHeader.newBuilder().setRangeId(1).setGeneration(range.getGeneration()))
        .setIngest(IngestCommand.newBuilder().setRestoreId(restoreId).setStart(ByteString.EMPTY).setEndInfinite(true)
            .addAllStagedNodeIds(List.of("n1", "n2", "n3")).setRequireEmpty(requireEmpty))
        .build();
    String leader = Await.result(Duration.ofSeconds(30), Duration.ofMillis(20), "range 1's leader",
        () -> admin.locate(1).map(l -> l.leaderAddress()).orElse(""), a -> !a.isEmpty());
    return BackupServiceGrpc.newBlockingStub(channels.channel(leader)).withDeadlineAfter(30, TimeUnit.SECONDS)
        .ingestStaged(req).getAppliedIndex();
  }
}
