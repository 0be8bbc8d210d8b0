package dev.rangekv.client;

import com.google.protobuf.ByteString;
import dev.rangekv.client.routing.CacheFold;
import dev.rangekv.client.routing.NodeCalls;
import dev.rangekv.client.routing.RangeOp;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.RangeMap;
import dev.rangekv.proto.BatchRequest;
import dev.rangekv.proto.CompareAndSetRequest;
import dev.rangekv.proto.DeleteRangeRequest;
import dev.rangekv.proto.DeleteRequest;
import dev.rangekv.proto.GetRequest;
import dev.rangekv.proto.MultiGetRequest;
import dev.rangekv.proto.MultiGetResponse;
import dev.rangekv.proto.PutRequest;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.WriteId;
import dev.rangekv.proto.convert.ProtoValues;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/** The client's {@link RangeOp}s: how each call builds its request for the range it is routed to. */
final class KvOps {
  private KvOps() {}

  static RangeHeader header(RangeDescriptor r) {
    return RangeHeader.newBuilder().setRangeId(r.rangeId()).setGeneration(r.generation()).build();
  }

  /** The range holding {@code [lo, hi)} whole, a placeholder (the router refreshes), or empty. */
  static Optional<RangeDescriptor> fit(RangeMap map, Key lo, RangeEnd hi) {
    RangeDescriptor r = map.lookup(lo);
    return CacheFold.isPlaceholder(r) || r.end().compareTo(hi) >= 0 ? Optional.of(r) : Optional.empty();
  }

  static ByteString value(byte[] v) {
    return ByteString.copyFrom(v);
  }

  /** How an op sends one attempt, given the header of the range it was routed to. */
  interface Sender<T> {
    CompletableFuture<T> send(NodeCalls calls, RangeHeader header, WriteId id);
  }

  /**
   * One op: the range it goes to under a map, how it sends an attempt there, and its description for
   * errors (built only when needed).
   */
  record Op<T>(boolean isWrite, Function<RangeMap, Optional<RangeDescriptor>> targets, Supplier<String> description,
      Sender<T> sender) implements RangeOp<T> {
    @Override
    public Optional<RangeDescriptor> target(RangeMap map) {
      return targets.apply(map);
    }

    @Override
    public CompletableFuture<T> send(NodeCalls calls, RangeDescriptor r, WriteId id) {
      return sender.send(calls, header(r), id);
    }

    @Override
    public String describe() {
      return description.get();
    }
  }

  /** An op on one key: it goes to the range holding the key; described as {@code name key=...}. */
  private static <T> RangeOp<T> onKey(String name, Key key, boolean isWrite, Sender<T> sender) {
    return new Op<>(isWrite, map -> Optional.of(map.lookup(key)), () -> name + " key=" + key, sender);
  }

  /** An op on {@code [lo, hi)}: it goes to the range holding the span whole (see {@link #fit}). */
  private static <T> RangeOp<T> onSpan(Key lo, RangeEnd hi, boolean isWrite, Supplier<String> description,
      Sender<T> sender) {
    return new Op<>(isWrite, map -> fit(map, lo, hi), description, sender);
  }

  static RangeOp<Optional<byte[]>> get(Key key) {
    return onKey("get", key, false, (calls, h, id) -> calls.get(GetRequest.newBuilder().setHeader(h).setKey(ProtoValues.bytes(key)).build())
        .thenApply(resp -> resp.getFound() ? Optional.of(resp.getValue().toByteArray()) : Optional.empty()));
  }

  static RangeOp<Void> put(Key key, ByteString value) {
    return onKey("put", key, true, (calls, h, id) -> calls.put(PutRequest.newBuilder()
        .setHeader(h).setWriteId(id).setKey(ProtoValues.bytes(key)).setValue(value).build()).thenApply(resp -> null));
  }

  static RangeOp<Void> delete(Key key) {
    return onKey("delete", key, true, (calls, h, id) -> calls.delete(DeleteRequest.newBuilder()
        .setHeader(h).setWriteId(id).setKey(ProtoValues.bytes(key)).build()).thenApply(resp -> null));
  }

  /** Compare-and-set; an empty {@code newValue} deletes the key on success. */
  static RangeOp<CasResult> cas(Key key, Optional<ByteString> expected, Optional<ByteString> newValue) {
    return onKey("compareAndSet", key, true, (calls, h, id) -> {
      CompareAndSetRequest.Builder b = CompareAndSetRequest.newBuilder().setHeader(h).setWriteId(id)
          .setKey(ProtoValues.bytes(key))
          .setExpectAbsent(expected.isEmpty())
          .setDeleteOnSuccess(newValue.isEmpty());
      expected.ifPresent(b::setExpectedValue);
      newValue.ifPresent(b::setNewValue);
      return calls.compareAndSet(b.build()).thenApply(resp -> new CasResult(resp.getSucceeded(),
          !resp.getSucceeded() && resp.getCurrentFound() ? resp.getCurrentValue().toByteArray() : null));
    });
  }

  /** A multi-get of sorted keys expected to share one range. */
  static RangeOp<MultiGetResponse> multiGet(List<Key> keys) {
    Key first = keys.get(0);
    Key last = keys.get(keys.size() - 1);
    return onSpan(first, RangeEnd.at(last.successor()), false,
        () -> "batchGet keys=" + keys.size() + " first=" + first + " last=" + last, (calls, h, id) -> {
          MultiGetRequest.Builder b = MultiGetRequest.newBuilder().setHeader(h);
          for (Key k : keys) {
            b.addKeys(ProtoValues.bytes(k));
          }
          return calls.multiGet(b.build());
        });
  }

  /** An atomic batch spanning {@code [lo, hi)}. */
  static RangeOp<BatchResult> batch(List<BatchOp> ops, Key lo, RangeEnd hi) {
    return onSpan(lo, hi, true, () -> "atomicBatch ops=" + ops.size() + " lo=" + lo + " hi=" + hi, (calls, h, id) -> {
      BatchRequest.Builder b = BatchRequest.newBuilder().setHeader(h).setWriteId(id);
      for (BatchOp op : ops) {
        b.addMutations(op.toProto());
      }
      return calls.batch(b.build()).thenApply(resp -> new BatchResult(resp.getSucceeded(),
          resp.getSucceeded() ? -1 : resp.getFailedCheckIndex(),
          !resp.getSucceeded() && resp.getCurrentFound() ? resp.getCurrentValue().toByteArray() : null));
    });
  }

  /** One piece of a delete-range, inside one range. */
  static RangeOp<Void> deleteRange(Key lo, RangeEnd hi) {
    return onSpan(lo, hi, true, () -> "deleteRange lo=" + lo + " hi=" + hi, (calls, h, id) -> calls.deleteRange(DeleteRangeRequest.newBuilder().setHeader(h).setWriteId(id).setLo(ProtoValues.bytes(lo))
            .setHi(ProtoValues.endBytes(hi)).setHiInfinite(hi.isInfinite()).build()).thenApply(resp -> null));
  }
}
