package dev.rangekv.client;

import com.google.protobuf.ByteString;
import dev.rangekv.client.routing.CacheFold;
import dev.rangekv.client.routing.NodeChannels;
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
import dev.rangekv.proto.KvServiceGrpc.KvServiceStub;
import dev.rangekv.proto.MultiGetRequest;
import dev.rangekv.proto.MultiGetResponse;
import dev.rangekv.proto.PutRequest;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.WriteId;
import dev.rangekv.proto.convert.ProtoValues;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

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

  /** How a single-key op sends one attempt, given the header of the range holding its key. */
  interface KeySend<T> {
    CompletableFuture<T> send(KvServiceStub stub, RangeHeader header, WriteId id);
  }

  /** An op on one key: it goes to the range holding the key. {@code name} starts its description. */
  record KeyOp<T>(String name, Key key, boolean isWrite, KeySend<T> sender) implements RangeOp<T> {
    @Override
    public Optional<RangeDescriptor> target(RangeMap map) {
      return Optional.of(map.lookup(key));
    }

    @Override
    public CompletableFuture<T> send(KvServiceStub stub, RangeDescriptor r, WriteId id) {
      return sender.send(stub, header(r), id);
    }

    @Override
    public String describe() {
      return name + " key=" + key;
    }
  }

  static RangeOp<Optional<byte[]>> get(Key key) {
    return new KeyOp<>("get", key, false, (stub, h, id) -> NodeChannels.unary(stub::get,
            GetRequest.newBuilder().setHeader(h).setKey(ProtoValues.bytes(key)).build())
        .thenApply(resp -> resp.getFound() ? Optional.of(resp.getValue().toByteArray()) : Optional.empty()));
  }

  static RangeOp<Void> put(Key key, ByteString value) {
    return new KeyOp<>("put", key, true, (stub, h, id) -> NodeChannels.unary(stub::put, PutRequest.newBuilder()
        .setHeader(h).setWriteId(id).setKey(ProtoValues.bytes(key)).setValue(value).build()).thenApply(resp -> null));
  }

  static RangeOp<Void> delete(Key key) {
    return new KeyOp<>("delete", key, true, (stub, h, id) -> NodeChannels.unary(stub::delete, DeleteRequest.newBuilder()
        .setHeader(h).setWriteId(id).setKey(ProtoValues.bytes(key)).build()).thenApply(resp -> null));
  }

  /** Compare-and-set; an empty {@code newValue} deletes the key on success. */
  static RangeOp<CasResult> cas(Key key, Optional<ByteString> expected, Optional<ByteString> newValue) {
    return new KeyOp<>("compareAndSet", key, true, (stub, h, id) -> {
      CompareAndSetRequest.Builder b = CompareAndSetRequest.newBuilder().setHeader(h).setWriteId(id)
          .setKey(ProtoValues.bytes(key))
          .setExpectAbsent(expected.isEmpty())
          .setDeleteOnSuccess(newValue.isEmpty());
      expected.ifPresent(b::setExpectedValue);
      newValue.ifPresent(b::setNewValue);
      return NodeChannels.unary(stub::compareAndSet, b.build()).thenApply(resp -> new CasResult(resp.getSucceeded(),
          !resp.getSucceeded() && resp.getCurrentFound() ? resp.getCurrentValue().toByteArray() : null));
    });
  }

  /** A multi-get of sorted keys expected to share one range. */
  record MultiGet(List<Key> keys) implements RangeOp<MultiGetResponse> {
    @Override
    public boolean isWrite() {
      return false;
    }

    @Override
    public Optional<RangeDescriptor> target(RangeMap map) {
      return fit(map, keys.get(0), RangeEnd.at(keys.get(keys.size() - 1).successor()));
    }

    @Override
    public CompletableFuture<MultiGetResponse> send(KvServiceStub stub, RangeDescriptor r, WriteId id) {
      MultiGetRequest.Builder b = MultiGetRequest.newBuilder().setHeader(header(r));
      for (Key k : keys) {
        b.addKeys(ProtoValues.bytes(k));
      }
      return NodeChannels.unary(stub::multiGet, b.build());
    }

    @Override
    public String describe() {
      return "batchGet keys=" + keys.size() + " first=" + keys.get(0) + " last=" + keys.get(keys.size() - 1);
    }
  }

  /** An atomic batch spanning {@code [lo, hi)}. */
  record Batch(List<BatchOp> ops, Key lo, RangeEnd hi) implements RangeOp<BatchResult> {
    @Override
    public boolean isWrite() {
      return true;
    }

    @Override
    public Optional<RangeDescriptor> target(RangeMap map) {
      return fit(map, lo, hi);
    }

    @Override
    public CompletableFuture<BatchResult> send(KvServiceStub stub, RangeDescriptor r, WriteId id) {
      BatchRequest.Builder b = BatchRequest.newBuilder().setHeader(header(r)).setWriteId(id);
      for (BatchOp op : ops) {
        b.addMutations(op.toProto());
      }
      return NodeChannels.unary(stub::batch, b.build()).thenApply(resp -> new BatchResult(resp.getSucceeded(),
          resp.getSucceeded() ? -1 : resp.getFailedCheckIndex(),
          !resp.getSucceeded() && resp.getCurrentFound() ? resp.getCurrentValue().toByteArray() : null));
    }

    @Override
    public String describe() {
      return "atomicBatch ops=" + ops.size() + " lo=" + lo + " hi=" + hi;
    }
  }

  /** One piece of a delete-range, inside one range. */
  record DeleteRange(Key lo, RangeEnd hi) implements RangeOp<Void> {
    @Override
    public boolean isWrite() {
      return true;
    }

    @Override
    public Optional<RangeDescriptor> target(RangeMap map) {
      return fit(map, lo, hi);
    }

    @Override
    public CompletableFuture<Void> send(KvServiceStub stub, RangeDescriptor r, WriteId id) {
      DeleteRangeRequest req = DeleteRangeRequest.newBuilder().setHeader(header(r)).setWriteId(id)
          .setLo(ProtoValues.bytes(lo)).setHi(ProtoValues.endBytes(hi)).setHiInfinite(hi.isInfinite()).build();
      return NodeChannels.unary(stub::deleteRange, req).thenApply(resp -> null);
    }

    @Override
    public String describe() {
      return "deleteRange lo=" + lo + " hi=" + hi;
    }
  }
}
