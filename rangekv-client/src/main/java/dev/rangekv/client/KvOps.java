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

  record Get(Key key) implements RangeOp<Optional<byte[]>> {
    @Override
    public boolean isWrite() {
      return false;
    }

    @Override
    public Optional<RangeDescriptor> target(RangeMap map) {
      return Optional.of(map.lookup(key));
    }

    @Override
    public CompletableFuture<Optional<byte[]>> send(KvServiceStub stub, RangeDescriptor r, WriteId id) {
      GetRequest req = GetRequest.newBuilder().setHeader(header(r)).setKey(ProtoValues.bytes(key)).build();
      return NodeChannels.unary(stub::get, req)
          .thenApply(resp -> resp.getFound() ? Optional.of(resp.getValue().toByteArray()) : Optional.empty());
    }

    @Override
    public String describe() {
      return "get key=" + key;
    }
  }

  record Put(Key key, ByteString value) implements RangeOp<Void> {
    @Override
    public boolean isWrite() {
      return true;
    }

    @Override
    public Optional<RangeDescriptor> target(RangeMap map) {
      return Optional.of(map.lookup(key));
    }

    @Override
    public CompletableFuture<Void> send(KvServiceStub stub, RangeDescriptor r, WriteId id) {
      PutRequest req = PutRequest.newBuilder().setHeader(header(r)).setWriteId(id)
          .setKey(ProtoValues.bytes(key)).setValue(value).build();
      return NodeChannels.unary(stub::put, req).thenApply(resp -> null);
    }

    @Override
    public String describe() {
      return "put key=" + key;
    }
  }

  record Delete(Key key) implements RangeOp<Void> {
    @Override
    public boolean isWrite() {
      return true;
    }

    @Override
    public Optional<RangeDescriptor> target(RangeMap map) {
      return Optional.of(map.lookup(key));
    }

    @Override
    public CompletableFuture<Void> send(KvServiceStub stub, RangeDescriptor r, WriteId id) {
      DeleteRequest req = DeleteRequest.newBuilder().setHeader(header(r)).setWriteId(id)
          .setKey(ProtoValues.bytes(key)).build();
      return NodeChannels.unary(stub::delete, req).thenApply(resp -> null);
    }

    @Override
    public String describe() {
      return "delete key=" + key;
    }
  }

  /** Compare-and-set; an empty {@code newValue} deletes the key on success. */
  record Cas(Key key, Optional<ByteString> expected, Optional<ByteString> newValue) implements RangeOp<CasResult> {
    @Override
    public boolean isWrite() {
      return true;
    }

    @Override
    public Optional<RangeDescriptor> target(RangeMap map) {
      return Optional.of(map.lookup(key));
    }

    @Override
    public CompletableFuture<CasResult> send(KvServiceStub stub, RangeDescriptor r, WriteId id) {
      CompareAndSetRequest.Builder b = CompareAndSetRequest.newBuilder().setHeader(header(r)).setWriteId(id)
          .setKey(ProtoValues.bytes(key))
          .setExpectAbsent(expected.isEmpty())
          .setDeleteOnSuccess(newValue.isEmpty());
      expected.ifPresent(b::setExpectedValue);
      newValue.ifPresent(b::setNewValue);
      return NodeChannels.unary(stub::compareAndSet, b.build()).thenApply(resp -> new CasResult(resp.getSucceeded(),
          !resp.getSucceeded() && resp.getCurrentFound() ? resp.getCurrentValue().toByteArray() : null));
    }

    @Override
    public String describe() {
      return "compareAndSet key=" + key;
    }
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
