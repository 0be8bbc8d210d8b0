package dev.rangekv.server.move;

import com.google.protobuf.ByteString;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.FetchSpanRequest;
import dev.rangekv.proto.replica.FileChunk;
import dev.rangekv.proto.replica.LocalField;
import dev.rangekv.proto.replica.SpanChunk;
import dev.rangekv.proto.replica.SpanHeader;
import dev.rangekv.server.replica.RangeReplica;
import dev.rangekv.server.replica.ReplicaDirectory;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.RangeLocalState;
import dev.rangekv.storage.SpanExport;
import dev.rangekv.storage.StoreSnapshot;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sending side of a span snapshot: reads the range's local state and takes a store snapshot while
 * no entry of the range is being applied (one applied point), exports the span from that snapshot
 * into SST files, and streams a header then the files in bounded chunks, paced by a bandwidth limit
 * and by gRPC flow control. Runs each transfer on {@code executor}; the export files are deleted after.
 */
public final class SpanSource {
  private static final Logger log = LoggerFactory.getLogger(SpanSource.class);
  private static final AtomicLong transferIds = new AtomicLong();

  private final NodeStore store;
  private final ReplicaDirectory directory;
  private final Path workDir;
  private final Executor executor;
  private final MoveOptions options;

  public SpanSource(NodeStore store, ReplicaDirectory directory, Path workDir, Executor executor, MoveOptions options) {
    this.store = store;
    this.directory = directory;
    this.workDir = workDir;
    this.executor = executor;
    this.options = options;
  }

  public void fetch(FetchSpanRequest request, ServerCallStreamObserver<SpanChunk> out) {
    executor.execute(() -> {
      try {
        stream(request, out);
      } catch (RuntimeException | IOException e) {
        log.warn("span transfer failed rangeId={} error={}", request.getRangeId(), e.toString());
        out.onError(Status.UNAVAILABLE.withDescription("span transfer failed: " + e).asRuntimeException());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        out.onError(Status.CANCELLED.withDescription("interrupted").asRuntimeException());
      }
    });
  }

  private record Point(RangeLocalState state, List<Map.Entry<String, byte[]>> fields, StoreSnapshot snapshot) {}

  private void stream(FetchSpanRequest request, ServerCallStreamObserver<SpanChunk> out)
      throws IOException, InterruptedException {
    long rangeId = request.getRangeId();
    Optional<RangeReplica> replica = directory.replica(rangeId);
    if (replica.isEmpty() || replica.get().descriptor().isEmpty()) {
      out.onError(RangeKvErrors.toStatusException(RangeKvErrors.rangeNotFound(rangeId)));
      return;
    }
    Point point = replica.get().atAppliedPoint(() -> new Point(
        store.rangeState(rangeId).orElseThrow(() -> new IllegalStateException("no stored state rangeId=" + rangeId)),
        store.localScan(rangeId, ""), store.snapshot()));
    Path dir = workDir.resolve("out-" + rangeId + "-" + transferIds.incrementAndGet());
    long t0 = System.nanoTime();
    try {
      SpanExport export;
      try (StoreSnapshot snapshot = point.snapshot()) {
        export = store.exportSpan(snapshot, point.state().descriptor().start(), point.state().descriptor().end(), dir,
            options.sstFileBytes());
      }
      long appliedTerm = point.state().appliedTerm() != 0 ? point.state().appliedTerm()
          : replica.get().logTermAt(point.state().appliedIndex()).orElse(0);
      SpanHeader.Builder header = SpanHeader.newBuilder()
          .setRange(directory.toProto(point.state().descriptor()))
          .setAppliedTerm(appliedTerm)
          .setAppliedIndex(point.state().appliedIndex())
          .setFileCount(export.files().size())
          .setTotalBytes(export.bytes());
      for (Map.Entry<String, byte[]> f : point.fields()) {
        header.addFields(LocalField.newBuilder().setName(f.getKey()).setValue(ByteString.copyFrom(f.getValue())));
      }
      send(out, SpanChunk.newBuilder().setHeader(header).build());
      long limit = request.getBytesPerSecond() > 0 ? request.getBytesPerSecond() : options.bytesPerSecond();
      BandwidthLimiter limiter = BandwidthLimiter.of(limit);
      int chunk = (int) Math.min(request.getChunkBytes() > 0 ? request.getChunkBytes() : options.chunkBytes(), 4 << 20);
      if (limit > 0) {
        chunk = (int) Math.max(16 << 10, Math.min(chunk, limit / 8)); // about 8 chunks a second: a smooth pace
      }
      for (int i = 0; i < export.files().size(); i++) {
        sendFile(out, i, export.files().get(i), chunk, limiter);
      }
      out.onCompleted();
      log.info("span sent rangeId={} appliedIndex={} keys={} bytes={} files={} ms={} limitBytesPerSecond={}",
          rangeId, point.state().appliedIndex(), export.keys(), export.bytes(), export.files().size(),
          (System.nanoTime() - t0) / 1_000_000, limit);
    } finally {
      deleteTree(dir);
    }
  }

  private void sendFile(ServerCallStreamObserver<SpanChunk> out, int index, Path file, int chunk,
      BandwidthLimiter limiter) throws IOException, InterruptedException {
    long size = Files.size(file);
    long sent = 0;
    try (InputStream in = Files.newInputStream(file)) {
      byte[] buf = new byte[chunk];
      do {
        int n = in.readNBytes(buf, 0, (int) Math.min(chunk, size - sent));
        sent += n;
        limiter.acquire(n);
        FileChunk fc = FileChunk.newBuilder()
            .setFileIndex(index)
            .setData(ByteString.copyFrom(buf, 0, n))
            .setLast(sent >= size)
            .build();
        send(out, SpanChunk.newBuilder().setFile(fc).build());
      } while (sent < size);
    }
  }

  /** Sends when the receiver has window (gRPC flow control), so a slow receiver bounds our memory. */
  private static void send(ServerCallStreamObserver<SpanChunk> out, SpanChunk chunk) throws InterruptedException {
    while (!out.isReady()) {
      if (out.isCancelled()) {
        throw new IllegalStateException("receiver cancelled the span transfer");
      }
      Thread.sleep(1);
    }
    out.onNext(chunk);
  }

  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      log.warn("could not delete transfer dir dir={} error={}", dir, e.toString());
    }
  }
}
