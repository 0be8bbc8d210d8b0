package dev.rangekv.cli.backup;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import dev.rangekv.cli.cluster.CliException;
import dev.rangekv.core.backup.KeySpan;
import dev.rangekv.proto.backup.BackupManifest;
import dev.rangekv.proto.backup.BackupRange;
import dev.rangekv.proto.convert.ProtoValues;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.util.List;
import java.util.Optional;

/**
 * Reads and writes a backup's {@code manifest.json} (the {@link BackupManifest} message in protobuf's
 * JSON form, so people and tools can read it), and converts its spans.
 */
public final class Manifests {
  /** The manifest's name at a backup's root. */
  public static final String NAME = "manifest.json";
  /** The manifest format this version writes and reads. */
  public static final int FORMAT = 1;

  private Manifests() {}

  /** The manifest at {@code dest}, if there is one; an unreadable one is a {@link CliException}. */
  public static Optional<BackupManifest> read(Destination dest) {
    byte[] bytes;
    try (InputStream in = dest.open(NAME)) {
      bytes = in.readAllBytes();
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new CliException("cannot read " + NAME + " at " + dest.uri() + ": " + e.getMessage(), e);
    }
    BackupManifest.Builder b = BackupManifest.newBuilder();
    try {
      JsonFormat.parser().merge(new String(bytes, StandardCharsets.UTF_8), b);
    } catch (InvalidProtocolBufferException e) {
      throw new CliException(NAME + " at " + dest.uri() + " is corrupt: " + e.getMessage(), e);
    }
    if (b.getFormat() != FORMAT) {
      throw new CliException(NAME + " at " + dest.uri() + " has format " + b.getFormat() + "; this version reads " + FORMAT);
    }
    return Optional.of(b.build());
  }

  /** The manifest at {@code dest}; none is a {@link CliException}. */
  public static BackupManifest require(Destination dest) {
    return read(dest).orElseThrow(() -> new CliException("no backup at " + dest.uri() + " (no " + NAME + ")"));
  }

  /** Writes {@code m} (replacing the manifest atomically). */
  public static void write(Destination dest, BackupManifest m) {
    try (OutputStream out = dest.create(NAME)) {
      out.write(JsonFormat.printer().print(m).getBytes(StandardCharsets.UTF_8));
      out.write('\n');
    } catch (IOException e) {
      throw new CliException("cannot write " + NAME + " at " + dest.uri() + ": " + e.getMessage(), e);
    }
  }

  public static KeySpan span(BackupManifest m) {
    return new KeySpan(ProtoValues.key(m.getSpanStart()), ProtoValues.end(m.getSpanEnd(), m.getSpanEndInfinite()));
  }

  public static KeySpan span(BackupRange r) {
    return new KeySpan(ProtoValues.key(r.getStart()), ProtoValues.end(r.getEnd(), r.getEndInfinite()));
  }

  public static List<KeySpan> spans(List<BackupRange> ranges) {
    return ranges.stream().map(Manifests::span).toList();
  }

  /** Total size of the files a manifest lists. */
  public static long bytes(BackupManifest m) {
    return m.getRangesList().stream().flatMap(r -> r.getFilesList().stream()).mapToLong(f -> f.getSize()).sum();
  }

  /** True once the run that wrote it finished (every range written). */
  public static boolean complete(BackupManifest m) {
    return m.getFinishedAtMillis() > 0;
  }
}
