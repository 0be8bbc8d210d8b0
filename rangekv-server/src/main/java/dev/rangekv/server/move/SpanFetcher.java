package dev.rangekv.server.move;

import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.replica.FetchSpanRequest;
import dev.rangekv.proto.replica.FileChunk;
import dev.rangekv.proto.replica.LocalField;
import dev.rangekv.proto.replica.ReplicaServiceGrpc;
import dev.rangekv.proto.replica.SpanChunk;
import dev.rangekv.proto.replica.SpanHeader;
import dev.rangekv.server.raft.PeerChannels;
import dev.rangekv.server.replica.ReplicaDirectory;
import dev.rangekv.server.replica.StagedSpan;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.RangeLocalState;
import dev.rangekv.storage.WriteBatchBuilder;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiving side of a span snapshot: streams a range's span from the leader's node into a staging
 * directory and hands back a {@link StagedSpan} that the range's state machine installs. Thread-safe.
 */
public final class SpanFetcher {
  private static final Logger log = LoggerFactory.getLogger(SpanFetcher.class);
  private static final AtomicLong stageIds = new AtomicLong();

  private final NodeStore store;
  private final ReplicaDirectory directory;
  private final PeerChannels channels;
  private final Path workDir;
  private final Executor executor;
  private final Map<Long, Long> limits = new ConcurrentHashMap<>();

  public SpanFetcher(NodeStore store, ReplicaDirectory directory, PeerChannels channels, Path workDir, Executor executor) {
    this.store = store;
    this.directory = directory;
    this.channels = channels;
    this.workDir = workDir;
    this.executor = executor;
  }

  /** The bandwidth limit to ask for when fetching {@code rangeId} (0 = the sender's default). */
  public void limit(long rangeId, long bytesPerSecond) {
    limits.put(rangeId, bytesPerSecond);
  }

  public CompletableFuture<StagedSpan> fetch(long rangeId, String leaderNodeId) {
    return CompletableFuture.supplyAsync(() -> fetchNow(rangeId, leaderNodeId), executor);
  }

  private StagedSpan fetchNow(long rangeId, String leaderNodeId) {
    String address = directory.addressOf(leaderNodeId);
    if (address.isEmpty()) {
      throw new IllegalStateException("no address known for leader " + leaderNodeId + " of range " + rangeId);
    }
    Path dir = workDir.resolve("in-" + rangeId + "-" + stageIds.incrementAndGet());
    long t0 = System.nanoTime();
    try {
      Files.createDirectories(dir);
      Iterator<SpanChunk> chunks = ReplicaServiceGrpc.newBlockingStub(channels.channel(address))
          .withDeadlineAfter(30, TimeUnit.MINUTES)
          .fetchSpan(FetchSpanRequest.newBuilder()
              .setRangeId(rangeId)
              .setBytesPerSecond(limits.getOrDefault(rangeId, 0L))
              .build());
      if (!chunks.hasNext()) {
        throw new IllegalStateException("empty span stream for range " + rangeId);
      }
      SpanChunk first = chunks.next();
      if (!first.hasHeader()) {
        throw new IllegalStateException("span stream without header for range " + rangeId);
      }
      SpanHeader header = first.getHeader();
      List<Path> files = new ArrayList<>();
      OutputStream current = null;
      try {
        while (chunks.hasNext()) {
          FileChunk c = chunks.next().getFile();
          if (c.getFileIndex() == files.size()) {
            files.add(dir.resolve(String.format("span-%06d.sst", c.getFileIndex())));
            current = Files.newOutputStream(files.get(c.getFileIndex()));
          } else if (c.getFileIndex() != files.size() - 1 || current == null) {
            throw new IllegalStateException("span chunk out of order file=" + c.getFileIndex());
          }
          c.getData().writeTo(current);
          if (c.getLast()) {
            current.close();
            current = null;
          }
        }
      } finally {
        if (current != null) {
          current.close();
        }
      }
      if (files.size() != header.getFileCount()) {
        throw new IllegalStateException("span stream ended after " + files.size() + " of " + header.getFileCount() + " files");
      }
      log.info("span fetched rangeId={} from={} appliedIndex={} bytes={} files={} ms={}", rangeId, leaderNodeId,
          header.getAppliedIndex(), header.getTotalBytes(), files.size(), (System.nanoTime() - t0) / 1_000_000);
      return new FetchedSpan(header, files, dir);
    } catch (IOException e) {
      SpanSource.deleteTree(dir);
      throw new UncheckedIOException("fetching span of range " + rangeId + " from " + leaderNodeId, e);
    } catch (RuntimeException e) {
      SpanSource.deleteTree(dir);
      log.warn("span fetch failed rangeId={} from={} error={}", rangeId, leaderNodeId, e.toString());
      throw e;
    }
  }

  /** Staged files plus the range's state and fields at the sender's applied point. */
  private final class FetchedSpan implements StagedSpan {
    private final SpanHeader header;
    private final List<Path> files;
    private final Path dir;

    FetchedSpan(SpanHeader header, List<Path> files, Path dir) {
      this.header = header;
      this.files = List.copyOf(files);
      this.dir = dir;
    }

    @Override
    public long appliedTerm() {
      return header.getAppliedTerm();
    }

    @Override
    public long appliedIndex() {
      return header.getAppliedIndex();
    }

    /**
     * Old local state out, the sender's fields in, then the span's data replaced and the range state
     * written last (durably): a crash before that leaves no state, and the leader sends a new snapshot.
     */
    @Override
    public void install() {
      try {
        RangeDescriptor d = ProtoValues.descriptor(header.getRange());
        store.deleteRangeLocalState(d.rangeId());
        if (header.getFieldsCount() > 0) {
          try (WriteBatchBuilder batch = store.newBatch()) {
            for (LocalField f : header.getFieldsList()) {
              batch.localPut(d.rangeId(), f.getName(), f.getValue().toByteArray());
            }
            store.write(batch);
          }
        }
        store.ingestSpan(d.start(), d.end(), files,
            new RangeLocalState(d, header.getAppliedTerm(), header.getAppliedIndex()));
        directory.holdsAgain(d.rangeId());
        directory.replicaRecord(d.rangeId());
      } finally {
        discard();
      }
    }

    @Override
    public void discard() {
      SpanSource.deleteTree(dir);
    }
  }

  /** Deletes what a previous run of the node staged in {@code dir}: an unfinished fetch is garbage. */
  public static void clearStaged(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
