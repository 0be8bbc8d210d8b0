package dev.rangekv.cli.backup;

import dev.rangekv.cli.cluster.CliException;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.backup.BackupFile;
import dev.rangekv.proto.backup.BackupRange;
import dev.rangekv.proto.backup.BackupServiceGrpc;
import dev.rangekv.proto.backup.ExportRangeRequest;
import dev.rangekv.proto.replica.FileChunk;
import dev.rangekv.proto.replica.SpanChunk;
import dev.rangekv.proto.replica.SpanHeader;
import dev.rangekv.server.raft.PeerChannels;
import io.grpc.Context;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * Copies one range into a backup: the node exports the range's span at one applied point (what a move
 * sends) and streams it; each SST file is written to the destination while its SHA-256 is computed.
 * Tries the range's leader first, then its other replicas.
 */
final class RangeExport {
  /** Rounds over the range's replicas while they answer UNAVAILABLE (about 4.5 s in all). */
  private static final int RETRIES = 10;
  private final PeerChannels channels;
  private final Destination dest;
  private final long bytesPerSecond;
  private final LongSupplier clock;
  private final java.util.function.Consumer<dev.rangekv.core.key.Key> read;

  /** {@code read} starts a read of a key and returns at once (its outcome is not needed): see {@link #wake}. */
  RangeExport(PeerChannels channels, Destination dest, long bytesPerSecond, LongSupplier clock,
      java.util.function.Consumer<dev.rangekv.core.key.Key> read) {
    this.channels = channels;
    this.dest = dest;
    this.bytesPerSecond = bytesPerSecond;
    this.clock = clock;
    this.read = read;
  }

  /**
   * Wakes range {@code d} ahead of its export, should it be dormant, by a read of its start key that is
   * not waited for: its groups reopen and elect a leader meanwhile (the export's own wake answers
   * UNAVAILABLE and is retried after a pause, which on 3 nodes cost about a second per dormant range).
   */
  void wake(RangeDescriptorProto d) {
    if (!d.getStart().isEmpty()) { // the first range of the keyspace: its export wakes it
      read.accept(dev.rangekv.proto.convert.ProtoValues.key(d.getStart()));
    }
  }

  /**
   * The range as written; when {@code reuse} accepts the header's range (its applied point unchanged
   * since a base backup), the stream is cancelled and {@code reused} is returned instead.
   */
  BackupRange export(RangeDescriptorProto d, List<String> addresses, Predicate<BackupRange> reuse) {
    StatusRuntimeException last = null;
    for (int attempt = 0; attempt < RETRIES; attempt++) {
      for (String address : addresses) {
        try (Context.CancellableContext call = Context.current().withCancellation()) {
          return call.call(() -> exportFrom(call, address, d, reuse));
        } catch (StatusRuntimeException e) {
          last = e;
        } catch (IOException e) {
          throw new CliException("cannot write range r" + d.getRangeId() + " to " + dest.uri() + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
          throw e;
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
      if (last == null || last.getStatus().getCode() != io.grpc.Status.Code.UNAVAILABLE) {
        break;
      }
      // a dormant range waking, or a leader being elected: a short wait, then the same replicas again
      try {
        Thread.sleep(100L * (attempt + 1));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CliException("interrupted", e);
      }
    }
    String why = last == null ? "no replica address known" : last.getStatus().getCode() + " "
        + (last.getStatus().getDescription() == null ? "" : last.getStatus().getDescription());
    throw new CliException("cannot export range r" + d.getRangeId() + " from " + addresses + ": " + why, last);
  }

  private BackupRange exportFrom(Context.CancellableContext call, String address, RangeDescriptorProto d,
      Predicate<BackupRange> reuse)
      throws IOException {
    Iterator<SpanChunk> chunks = BackupServiceGrpc.newBlockingStub(channels.channel(address))
        .withDeadlineAfter(6, TimeUnit.HOURS)
        .exportRange(ExportRangeRequest.newBuilder().setRangeId(d.getRangeId()).setBytesPerSecond(bytesPerSecond).build());
    if (!chunks.hasNext()) {
      throw new CliException("range r" + d.getRangeId() + ": the node at " + address + " sent nothing");
    }
    SpanChunk first = chunks.next();
    if (!first.hasHeader()) {
      throw new CliException("range r" + d.getRangeId() + ": the node at " + address + " sent no header");
    }
    SpanHeader h = first.getHeader();
    RangeDescriptorProto at = h.getRange();
    BackupRange.Builder range = BackupRange.newBuilder()
        .setRangeId(at.getRangeId())
        .setGeneration(at.getGeneration())
        .setStart(at.getStart())
        .setEnd(at.getEnd())
        .setEndInfinite(at.getEndInfinite())
        .setAppliedIndex(h.getAppliedIndex())
        .setAppliedTerm(h.getAppliedTerm())
        .setExportedAtMillis(clock.getAsLong());
    if (reuse.test(range.build())) {
      call.cancel(null);
      return range.build();
    }
    String dir = "data/r" + at.getRangeId() + "-g" + at.getGeneration() + "-i" + h.getAppliedIndex() + "/";
    OutputStream out = null;
    MessageDigest sha = null;
    long size = 0;
    String name = null;
    try {
      while (chunks.hasNext()) {
        FileChunk c = chunks.next().getFile();
        if (out == null) {
          if (c.getFileIndex() != range.getFilesCount()) {
            throw new CliException("range r" + d.getRangeId() + ": file chunk out of order from " + address);
          }
          name = dir + String.format("span-%06d.sst", c.getFileIndex());
          out = dest.create(name);
          sha = FileCheck.sha256();
          size = 0;
        }
        c.getData().writeTo(out);
        for (var b : c.getData().asReadOnlyByteBufferList()) {
          sha.update(b);
        }
        size += c.getData().size();
        if (c.getLast()) {
          out.close();
          out = null;
          range.addFiles(BackupFile.newBuilder().setName(name).setSize(size)
              .setSha256(HexFormat.of().formatHex(sha.digest())));
        }
      }
    } finally {
      if (out != null) {
        out.close(); // a partial file under a name no manifest lists: overwritten on the next try
      }
    }
    if (range.getFilesCount() != h.getFileCount()) {
      throw new CliException("range r" + d.getRangeId() + ": the stream from " + address + " ended after "
          + range.getFilesCount() + " of " + h.getFileCount() + " files");
    }
    return range.build();
  }
}
