package dev.rangekv.client;

import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.proto.Condition;
import dev.rangekv.proto.DeleteRangeSpan;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.proto.Mutation;
import dev.rangekv.proto.convert.ProtoValues;
import java.util.Optional;

/**
 * One operation of an atomic batch: put, delete, delete a span, or check a key's value. Immutable.
 * All ops of a batch must lie in one range (see {@link RangeKvClient#atomicBatch}).
 */
public final class BatchOp {
  private final Mutation mutation;
  private final Key first;
  private final RangeEnd end;

  private BatchOp(Mutation mutation, Key first, RangeEnd end) {
    this.mutation = mutation;
    this.first = first;
    this.end = end;
  }

  public static BatchOp put(Key key, byte[] value) {
    return new BatchOp(Mutation.newBuilder().setPut(KeyValueProto.newBuilder()
        .setKey(ProtoValues.bytes(key)).setValue(ByteString.copyFrom(value))).build(), key, RangeEnd.at(key.successor()));
  }

  public static BatchOp delete(Key key) {
    return new BatchOp(Mutation.newBuilder().setDelete(ProtoValues.bytes(key)).build(), key, RangeEnd.at(key.successor()));
  }

  /** Deletes every key in {@code [lo, hi)}. */
  public static BatchOp deleteRange(Key lo, RangeEnd hi) {
    if (!hi.isAbove(lo)) {
      throw new IllegalArgumentException("empty span lo=" + lo + " hi=" + hi);
    }
    return new BatchOp(Mutation.newBuilder().setDeleteRange(DeleteRangeSpan.newBuilder()
        .setLo(ProtoValues.bytes(lo)).setHi(ProtoValues.endBytes(hi)).setHiInfinite(hi.isInfinite())).build(), lo, hi);
  }

  /** The batch applies only if {@code key} holds {@code expected} (empty: only if the key is absent). */
  public static BatchOp check(Key key, Optional<byte[]> expected) {
    Condition.Builder c = Condition.newBuilder().setKey(ProtoValues.bytes(key)).setExpectAbsent(expected.isEmpty());
    expected.ifPresent(v -> c.setExpectedValue(ByteString.copyFrom(v)));
    return new BatchOp(Mutation.newBuilder().setCheck(c).build(), key, RangeEnd.at(key.successor()));
  }

  /** The smallest key the op touches. */
  public Key firstKey() {
    return first;
  }

  /** The exclusive end of the keys the op touches. */
  public RangeEnd end() {
    return end;
  }

  Mutation toProto() {
    return mutation;
  }

  @Override
  public String toString() {
    return mutation.getOpCase() + "[" + first + ", " + end + ")";
  }
}
