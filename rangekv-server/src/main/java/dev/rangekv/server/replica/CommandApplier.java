package dev.rangekv.server.replica;

import com.google.protobuf.ByteString;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Applies one client write of a range into an entry's batch: dedupe lookup, the write's checks against
 * the current state (the store plus earlier writes of the same entry; all checks first, then every
 * mutation in order, or none), and the dedupe record. Deterministic given the store's state of this
 * range, which only applied entries of this range change. Splits are applied by {@code split.SplitApplier}.
 */
public final class CommandApplier {
  private CommandApplier() {}

  /** Applies {@code write} (already validated against the bounds) into {@code batch}. */
  static CommandResult applyWrite(EntryBatch batch, BatchRequest write) {
    boolean tracked = write.hasWriteId() && DedupeTable.tracked(write.getWriteId());
    if (tracked) {
      Optional<CommandResult> seen = DedupeTable.seen(batch, write.getWriteId());
      if (seen.isPresent()) {
        return seen.get();
      }
    }
    CommandResult result = CommandResult.newBuilder().setBatch(applyBatch(batch, write)).build();
    if (tracked) {
      DedupeTable.record(batch, write.getWriteId(), result);
    }
    return result;
  }

  static BatchResponse applyBatch(EntryBatch batch, BatchRequest request) {
    for (int i = 0; i < request.getMutationsCount(); i++) {
      Mutation m = request.getMutations(i);
      if (m.hasCheck()) {
        Condition c = m.getCheck();
        Optional<byte[]> current = batch.get(ProtoValues.key(c.getKey()));
        boolean holds = c.getExpectAbsent()
            ? current.isEmpty()
            : current.isPresent() && c.getExpectedValue().equals(UnsafeByteOperations.unsafeWrap(current.get()));
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
          batch.deleteRange(ProtoValues.key(s.getLo()), ProtoValues.end(s.getHi(), s.getHiInfinite()));
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

  /** The spans {@code write} deletes with range deletes (their space is reclaimed only by compaction). */
  static List<Span> deletedSpans(BatchRequest write) {
    List<Span> out = new ArrayList<>();
    for (Mutation m : write.getMutationsList()) {
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
}
