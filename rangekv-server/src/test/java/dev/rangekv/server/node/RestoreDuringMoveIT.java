package dev.rangekv.server.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.ReplicaProto;
import dev.rangekv.proto.backup.BackupFile;
import dev.rangekv.proto.backup.BackupServiceGrpc;
import dev.rangekv.proto.backup.IngestStagedRequest;
import dev.rangekv.proto.backup.StageChunk;
import dev.rangekv.proto.backup.StageFilesResponse;
import dev.rangekv.proto.backup.StageHeader;
import dev.rangekv.proto.replica.FileChunk;
import dev.rangekv.proto.replica.IngestCommand;
import dev.rangekv.server.move.NodeAdminClient;
import dev.rangekv.server.raft.PeerChannels;
import dev.rangekv.storage.KeyValue;
import dev.rangekv.testcluster.ClusterRouter;
import dev.rangekv.testkit.Await;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.EnvOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.SstFileWriter;

/**
 * A restore's ingest entry meets a replica that a real move added after the staging: the move's span
 * transfer to the new node is under way (paced) when the ingest entry commits on the staged replicas,
 * so the new replica applies the entry with no staged copy on its node and installs the restored span
 * from a node that staged and applied it (IngestRepair). It ends up with the restored keys and keeps
 * applying. One 4-node in-JVM cluster without a meta range; the move is driven by hand, no timing.
 */
class RestoreDuringMoveIT {
  private static final String RESTORE_ID = "it-move";
  private static final int RESTORED = 100;

  @TempDir Path dir;

  @Test
  @Timeout(180)
  void aReplicaAddedByAMoveAfterTheStaging_getsTheRestoredSpanFromAStagedNode() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(4, dir.resolve("cluster"), RaftTuning.forTests());
        ClusterRouter router = ClusterSteps.router(cluster);
        NodeAdminClient mover = ClusterSteps.mover(cluster, Duration.ofSeconds(90))) {
      PeerChannels channels = PeerChannels.forCommand(64 << 20, Optional.empty());
      try {
        router.refresh();
        SplittableRandom random = new SplittableRandom(33);
        for (int i = 0; i < 128; i++) { // ~512 KiB the restore replaces, and the move's transfer carries
          StringBuilder v = new StringBuilder();
          random.ints(4096, 33, 127).forEach(c -> v.append((char) c));
          router.put(String.format("old/%03d", i), v.toString());
        }
        BackupFile file = restoreFile(dir.resolve("restore"));
        RangeDescriptorProto range = mover.locate(1).orElseThrow().range();
        StageHeader header = StageHeader.newBuilder().setRestoreId(RESTORE_ID).setRangeId(1).addFiles(file)
            .setStart(ByteString.EMPTY).setEndInfinite(true).build();
        for (ReplicaProto r : range.getReplicasList()) {
          stage(channels, r.getAddress(), header, dir.resolve("restore").resolve(file.getName()));
        }

        // the move n3 -> n4, its span transfer paced at 128 KiB/s: about 4 s
        CompletableFuture<RangeDescriptorProto> move = CompletableFuture.supplyAsync(
            () -> mover.move(1, "n3", cluster.config(3).clientAddress(), 128 << 10));
        Path receiving = cluster.config(3).dataDir().resolve("transfers");
        Await.until(Duration.ofSeconds(60), "n4 receiving the range's span", () -> MoveIT.receivedBytes(receiving) > 64 << 10);

        // n4's span predates this entry, and n4 is not yet in the range's descriptor: the entry applies
        // (every replica of the descriptor staged), and n4 has nothing staged
        IngestStagedRequest ingest = IngestStagedRequest.newBuilder()
            .setHeader(RangeHeader.newBuilder().setRangeId(1).setGeneration(range.getGeneration()))
            .setIngest(IngestCommand.newBuilder().setRestoreId(RESTORE_ID).setStart(ByteString.EMPTY)
                .setEndInfinite(true).addAllStagedNodeIds(List.of("n1", "n2", "n3")).setRequireEmpty(false))
            .build();
        Await.until(Duration.ofSeconds(60), "the ingest entry applied", () -> {
          try {
            String leader = mover.locate(1).orElseThrow().leaderAddress();
            return BackupServiceGrpc.newBlockingStub(channels.channel(leader)).withDeadlineAfter(20, TimeUnit.SECONDS)
                .ingestStaged(ingest).getAppliedIndex() > 0;
          } catch (StatusRuntimeException e) {
            assertThat(e.getMessage()).as("the entry was refused").doesNotContain("not staged");
            return false; // a leader being elected
          }
        });
        assertThat(move).as("the move still under way at the ingest").isNotDone();

        RangeDescriptorProto moved = move.get(120, TimeUnit.SECONDS);
        assertThat(moved.getReplicasList()).extracting(ReplicaProto::getNodeId).containsExactlyInAnyOrder("n1", "n2", "n4");
        var n4 = cluster.node(3).store();
        Await.until(Duration.ofSeconds(60), "n4 holding the restored keys", () ->
            n4.scan(Key.utf8("r/"), RangeEnd.at(Key.utf8("r0")), 1000, false).size() == RESTORED);
        List<KeyValue> old = n4.scan(Key.utf8("old/"), RangeEnd.at(Key.utf8("old0")), 1, false);
        assertThat(old).as("keys the restore replaced, on n4").isEmpty();
        assertThat(n4.get(Key.utf8("r/042")).map(v -> new String(v, StandardCharsets.UTF_8))).hasValue("value-42");

        router.put("after", "1"); // n4 keeps applying after the installed span
        Await.until(Duration.ofSeconds(30), "n4 applying a write after the restore",
            () -> n4.get(Key.utf8("after")).isPresent());
        ClusterSteps.awaitSameStores(cluster, "n1, n2 and n4 alike", Duration.ofSeconds(30), () -> List.of(0, 1, 3));
      } finally {
        channels.close();
      }
    }
  }

  /** One SST file of r/000..r/099 under {@code dir}, described as a backup lists it. */
  static BackupFile restoreFile(Path dir) throws Exception {
    RocksDB.loadLibrary();
    Files.createDirectories(dir);
    Path sst = dir.resolve("span-000000.sst");
    try (Options options = new Options(); EnvOptions env = new EnvOptions(); SstFileWriter w = new SstFileWriter(env, options)) {
      w.open(sst.toString());
      for (int i = 0; i < RESTORED; i++) {
        w.put(String.format("r/%03d", i).getBytes(StandardCharsets.UTF_8), ("value-" + i).getBytes(StandardCharsets.UTF_8));
      }
      w.finish();
    }
    byte[] bytes = Files.readAllBytes(sst);
    return BackupFile.newBuilder().setName(sst.getFileName().toString()).setSize(bytes.length)
        .setSha256(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes))).build();
  }

  /** Stages {@code file} (small: one chunk) on the node at {@code address}; fails with the node's refusal. */
  static void stage(PeerChannels channels, String address, StageHeader header, Path file) throws Exception {
    CompletableFuture<StageFilesResponse> reply = new CompletableFuture<>();
    StreamObserver<StageChunk> out = BackupServiceGrpc.newStub(channels.channel(address))
        .withDeadlineAfter(30, TimeUnit.SECONDS).stageFiles(new StreamObserver<>() {
          @Override
          public void onNext(StageFilesResponse value) {
            reply.complete(value);
          }

          @Override
          public void onError(Throwable t) {
            reply.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {
            reply.completeExceptionally(new IllegalStateException("the node answered nothing"));
          }
        });
    out.onNext(StageChunk.newBuilder().setHeader(header).build());
    out.onNext(StageChunk.newBuilder().setFile(FileChunk.newBuilder().setFileIndex(0)
        .setData(ByteString.copyFrom(Files.readAllBytes(file))).setLast(true)).build());
    out.onCompleted();
    assertThat(reply.get(30, TimeUnit.SECONDS).getBytes()).isEqualTo(Files.size(file)); // kept as sent
  }
}
