package dev.rangekv.server.backup;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.proto.backup.BackupFile;
import dev.rangekv.proto.backup.StageChunk;
import dev.rangekv.proto.backup.StageFilesResponse;
import dev.rangekv.proto.backup.StageHeader;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.replica.FileChunk;
import dev.rangekv.server.replica.RestoreStaging;
import dev.rangekv.storage.NodeStore;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Receives one range's restore files (a {@link StageHeader}, then file chunks in order) into
 * {@code <staging dir>.part}, checking each file's size and SHA-256 as it ends; rewrites them into the
 * target span when asked; then renames the directory into place, so a staging is complete or absent.
 * gRPC calls it on one thread at a time; the rewrite and rename run on {@code executor}.
 */
final class StageReceiver implements StreamObserver<StageChunk> {
  private static final Logger log = LoggerFactory.getLogger(StageReceiver.class);

  private final NodeStore store;
  private final Executor executor;
  private final StreamObserver<StageFilesResponse> out;
  private StageHeader header;
  private Path part;
  private Path received;
  private OutputStream current;
  private MessageDigest digest;
  private long written;
  private int fileIndex = -1;
  private boolean failed;

  StageReceiver(NodeStore store, Executor executor, StreamObserver<StageFilesResponse> out) {
    this.store = store;
    this.executor = executor;
    this.out = out;
  }

  @Override
  public void onNext(StageChunk chunk) {
    if (failed) {
      return;
    }
    try {
      if (chunk.hasHeader()) {
        start(chunk.getHeader());
      } else {
        write(chunk.getFile());
      }
    } catch (IOException | RuntimeException e) {
      fail(e.getMessage() == null ? e.toString() : e.getMessage());
    }
  }

  private void start(StageHeader h) throws IOException {
    if (header != null) {
      throw new IllegalArgumentException("a second stage header");
    }
    header = h;
    // what abandoned restores left long ago goes now: a node that never restarts sweeps too
    RestoreStaging.sweep(RestoreStaging.root(store), java.time.Instant.now().minus(RestoreStaging.EXPIRY), false);
    Path dir = RestoreStaging.dir(store, h.getRestoreId(), h.getRangeId());
    part = dir.resolveSibling(dir.getFileName() + ".part");
    RestoreStaging.deleteTree(part);
    RestoreStaging.deleteTree(dir);
    received = part.resolve("received");
    Files.createDirectories(received);
  }

  private void write(FileChunk c) throws IOException {
    if (header == null) {
      throw new IllegalArgumentException("file chunk before the stage header");
    }
    if (c.getFileIndex() == fileIndex + 1 && current == null) {
      if (c.getFileIndex() >= header.getFilesCount()) {
        throw new IllegalArgumentException("more files than the header lists: " + (c.getFileIndex() + 1));
      }
      fileIndex = c.getFileIndex();
      current = Files.newOutputStream(received.resolve(String.format("span-%06d.sst", fileIndex)));
      digest = sha256();
      written = 0;
    } else if (c.getFileIndex() != fileIndex || current == null) {
      throw new IllegalArgumentException("file chunk out of order: file " + c.getFileIndex());
    }
    byte[] data = c.getData().toByteArray();
    current.write(data);
    digest.update(data);
    written += data.length;
    if (c.getLast()) {
      current.close();
      current = null;
      BackupFile expected = header.getFiles(fileIndex);
      String sha = HexFormat.of().formatHex(digest.digest());
      if (written != expected.getSize() || !sha.equals(expected.getSha256())) {
        throw new IllegalArgumentException("file " + expected.getName() + " is corrupt: received " + written
            + " bytes with sha256 " + sha + ", the manifest says " + expected.getSize() + " bytes with sha256 "
            + expected.getSha256());
      }
    }
  }

  @Override
  public void onError(Throwable t) {
    failed = true;
    closeQuietly();
    cleanUp();
  }

  @Override
  public void onCompleted() {
    if (failed) {
      return;
    }
    if (header == null || current != null || fileIndex + 1 != header.getFilesCount()) {
      fail("stream ended after " + (fileIndex + 1) + " of " + (header == null ? "?" : header.getFilesCount())
          + " files");
      return;
    }
    executor.execute(this::finish);
  }

  private void finish() {
    try {
      long keys = -1;
      Path dir = RestoreStaging.dir(store, header.getRestoreId(), header.getRangeId());
      Path ready = part.resolve("ready");
      if (header.getRewrite()) {
        Files.createDirectories(ready);
        keys = 0;
        Key lo = ProtoValues.key(header.getStart());
        RangeEnd hi = ProtoValues.end(header.getEnd(), header.getEndInfinite());
        Key from = ProtoValues.key(header.getFromPrefix());
        Key to = ProtoValues.key(header.getToPrefix());
        for (Path f : RestoreStaging.files(received)) {
          keys += store.rewriteSst(f, ready.resolve(f.getFileName()), lo, hi, from, to);
        }
        RestoreStaging.deleteTree(received);
      } else {
        Files.move(received, ready, StandardCopyOption.ATOMIC_MOVE);
      }
      long bytes = 0;
      for (Path f : RestoreStaging.files(ready)) {
        bytes += Files.size(f);
      }
      Files.move(ready, dir, StandardCopyOption.ATOMIC_MOVE);
      RestoreStaging.deleteTree(part);
      log.info("restore files staged rangeId={} restoreId={} files={} bytes={} rewritten={}", header.getRangeId(),
          header.getRestoreId(), header.getFilesCount(), bytes, header.getRewrite());
      out.onNext(StageFilesResponse.newBuilder().setKeys(Math.max(keys, 0)).setBytes(bytes).build());
      out.onCompleted();
    } catch (IOException | RuntimeException e) {
      fail(e.toString());
    }
  }

  private void fail(String reason) {
    failed = true;
    closeQuietly();
    cleanUp();
    log.warn("restore staging failed rangeId={} error={}", header == null ? 0 : header.getRangeId(), reason);
    out.onError(Status.INVALID_ARGUMENT.withDescription(reason).asRuntimeException());
  }

  private void closeQuietly() {
    if (current != null) {
      try {
        current.close();
      } catch (IOException e) {
        log.debug("closing a staged file failed error={}", e.toString());
      }
      current = null;
    }
  }

  private void cleanUp() {
    if (part != null) {
      try {
        RestoreStaging.deleteTree(part);
      } catch (IOException e) {
        log.warn("could not delete a failed staging dir={} error={}", part, e.toString());
      }
    }
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
