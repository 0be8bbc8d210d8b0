package dev.rangekv.server.replica;

import com.google.protobuf.ByteString;
import dev.rangekv.proto.DuplicateTooOld;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.DedupeEntry;
import dev.rangekv.proto.replica.DedupeRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * At-most-once application of client writes across leader changes and restarts: per range and client,
 * the results of the last {@link #WINDOW} applied request ids, stored in the range's local state in the
 * same write batch as the write. Ratis' in-memory retry cache covers the common case; this covers the
 * rest. Pure functions over {@link DedupeRecord}s.
 */
public final class DedupeTable {
  /** Request ids remembered per client and range. */
  public static final int WINDOW = 64;

  /** Local-state field prefix of dedupe records. */
  public static final String PREFIX = "dedupe/";

  private DedupeTable() {}

  public static String field(ByteString clientId) {
    return PREFIX + HexFormat.of().formatHex(clientId.toByteArray());
  }

  /**
   * The reply for a request already seen: its recorded result, or {@code DUPLICATE_TOO_OLD} when it is
   * older than the window. Empty for a new request.
   */
  public static Optional<CommandResult> seen(DedupeRecord record, long requestId) {
    for (DedupeEntry e : record.getEntriesList()) {
      if (e.getRequestId() == requestId) {
        return Optional.of(e.getResult());
      }
    }
    if (requestId <= record.getFloor()) {
      RangeKvError error =
          RangeKvError.newBuilder()
              .setDuplicateTooOld(DuplicateTooOld.newBuilder().setRequestId(requestId))
              .setMessage("request " + requestId + " is older than the dedupe window; its outcome is unknown")
              .build();
      return Optional.of(CommandResult.newBuilder().setError(error).build());
    }
    return Optional.empty();
  }

  /** {@code record} plus {@code requestId -> result}, trimmed to the window (large values dropped). */
  public static DedupeRecord add(DedupeRecord record, long requestId, CommandResult result) {
    CommandResult slim =
        result.hasBatch() && !result.getBatch().getCurrentValue().isEmpty()
            ? result.toBuilder().setBatch(result.getBatch().toBuilder().clearCurrentValue()).build()
            : result;
    List<DedupeEntry> entries = new ArrayList<>(record.getEntriesList());
    entries.add(DedupeEntry.newBuilder().setRequestId(requestId).setResult(slim).build());
    entries.sort(Comparator.comparingLong(DedupeEntry::getRequestId));
    long floor = record.getFloor();
    while (entries.size() > WINDOW) {
      floor = Math.max(floor, entries.remove(0).getRequestId());
    }
    return DedupeRecord.newBuilder().setFloor(floor).addAllEntries(entries).build();
  }
}
