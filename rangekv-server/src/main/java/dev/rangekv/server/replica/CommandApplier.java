package dev.rangekv.server.replica;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnsafeByteOperations;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.proto.BatchRequest;
import dev.rangekv.proto.BatchResponse;
import dev.rangekv.proto.Condition;
import dev.rangekv.proto.DeleteRangeSpan;
import dev.rangekv.proto.Mutation;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.DedupeRecord;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.WriteBatchBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Applies one client write command of a range into a write batch: dedupe lookup, the batch's checks
 * against the store's current state (all checks first, then every mutation in order, or none), and the
 * dedupe record. Deterministic given the store's state of this range, which only applied entries of
 * this range change. Splits are applied by {@code split.SplitApplier}.
 */
public final class CommandApplier {
  private CommandApplier() {}

  /** Applies the write {@code cmd} (already validated against the bounds) into {@code batch}. */
  public static CommandResult applyWrite(NodeStore store, long rangeId, RangeCommand cmd, WriteBatchBuilder batch) {
    boolean tracked = cmd.hasWriteId() && !cmd.getWriteId().getClientId().isEmpty();
    String field = tracked ? DedupeTable.field(cmd.getWriteId().getClientId()) : null;
    DedupeRecord record = DedupeRecord.getDefaultInstance();
    if (tracked) {
      record = store.localGet(rangeId, field).map(CommandApplier::parseRecord).orElse(record);
      Optional<CommandResult> seen = DedupeTable.seen(record, cmd.getWriteId().getRequestId());
      if (seen.isPresent()) {
        return seen.get();
      }
    }
    CommandResult result = CommandResult.newBuilder().setBatch(applyBatch(store, cmd.getBatch(), batch)).build();
    if (tracked) {
      DedupeRecord next = DedupeTable.add(record, cmd.getWriteId().getRequestId(), result);
      batch.localPut(rangeId, field, next.toByteArray());
    }
    return result;
  }

  static BatchResponse applyBatch(NodeStore store, BatchRequest request, WriteBatchBuilder batch) {
    for (int i = 0; i < request.getMutationsCount(); i++) {
      Mutation m = request.getMutations(i);
      if (m.hasCheck()) {
        Condition c = m.getCheck();
        Optional<byte[]> current = store.get(ProtoValues.key(c.getKey()));
        boolean holds =
            c.getExpectAbsent()
                ? current.isEmpty()
                : current.isPresent() && Arrays.equals(current.get(), c.getExpectedValue().toByteArray());
        if (!holds) {
          return BatchResponse.newBuilder()
              .setSucceeded(false)
              .setFailedCheckIndex(i)
              .setCurrentFound(current.isPresent())
              .setCurrentValue(current.map(UnsafeByteOperations::unsafeWrap).orElse(ByteString.EMPTY))
              .build();
        }
      }
    }
    for (Mutation m : request.getMutationsList()) {
      switch (m.getOpCase()) {
        case PUT -> batch.put(ProtoValues.key(m.getPut().getKey()), m.getPut().getValue().toByteArray());
        case DELETE -> batch.delete(ProtoValues.key(m.getDelete()));
        case DELETE_RANGE -> {
          DeleteRangeSpan s = m.getDeleteRange();
          Key lo = ProtoValues.key(s.getLo());
          batch.deleteRange(lo, ProtoValues.end(s.getHi(), s.getHiInfinite()));
        }
        case CHECK, OP_NOT_SET -> {
          // checks were evaluated above; an empty mutation is refused by RangeChecks
        }
      }
    }
    return BatchResponse.newBuilder().setSucceeded(true).setFailedCheckIndex(-1).build();
  }

  /** A span a write deleted with a range delete. */
  public record Span(Key lo, RangeEnd hi) {}

  /** The spans {@code cmd}'s batch deletes with range deletes (their space is reclaimed only by compaction). */
  public static List<Span> deletedSpans(RangeCommand cmd) {
    if (!cmd.hasBatch()) {
      return List.of();
    }
    List<Span> out = new ArrayList<>();
    for (Mutation m : cmd.getBatch().getMutationsList()) {
      if (m.hasDeleteRange()) {
        DeleteRangeSpan s = m.getDeleteRange();
        out.add(new Span(ProtoValues.key(s.getLo()), ProtoValues.end(s.getHi(), s.getHiInfinite())));
      }
    }
    return out;
  }

  /** A refusal as a reply: deterministic, so every replica "applies" it the same way (no write). */
  public static CommandResult refusal(RangeKvError error) {
    return CommandResult.newBuilder().setError(error).build();
  }

  private static DedupeRecord parseRecord(byte[] bytes) {
    try {
      return DedupeRecord.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("corrupt dedupe record: " + e.getMessage(), e);
    }
  }
}
