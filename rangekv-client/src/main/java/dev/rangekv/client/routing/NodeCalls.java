package dev.rangekv.client.routing;

import dev.rangekv.proto.BatchRequest;
import dev.rangekv.proto.BatchResponse;
import dev.rangekv.proto.CompareAndSetRequest;
import dev.rangekv.proto.CompareAndSetResponse;
import dev.rangekv.proto.DeleteRangeRequest;
import dev.rangekv.proto.DeleteRangeResponse;
import dev.rangekv.proto.DeleteRequest;
import dev.rangekv.proto.DeleteResponse;
import dev.rangekv.proto.GetRequest;
import dev.rangekv.proto.GetResponse;
import dev.rangekv.proto.KvCall;
import dev.rangekv.proto.KvCallResult;
import dev.rangekv.proto.MultiGetRequest;
import dev.rangekv.proto.MultiGetResponse;
import dev.rangekv.proto.PutRequest;
import dev.rangekv.proto.PutResponse;
import dev.rangekv.proto.ScanRequest;
import dev.rangekv.proto.ScanResponse;
import dev.rangekv.proto.convert.RangeKvErrors;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The KV calls of one attempt to one node, each with the attempt's timeout, sent on the node's shared
 * call stream. A failed call fails its future with the same gRPC status exception (typed error in the
 * trailers) its unary twin would, so {@link Failures} classifies both alike. Immutable.
 */
public final class NodeCalls {
  private final CallMux mux;
  private final long timeoutNanos;

  NodeCalls(CallMux mux, long timeoutNanos) {
    this.mux = mux;
    this.timeoutNanos = timeoutNanos;
  }

  public CompletableFuture<GetResponse> get(GetRequest r) {
    return call(KvCall.newBuilder().setGet(r), KvCallResult::getGet);
  }

  public CompletableFuture<MultiGetResponse> multiGet(MultiGetRequest r) {
    return call(KvCall.newBuilder().setMultiGet(r), KvCallResult::getMultiGet);
  }

  public CompletableFuture<PutResponse> put(PutRequest r) {
    return call(KvCall.newBuilder().setPut(r), KvCallResult::getPut);
  }

  public CompletableFuture<DeleteResponse> delete(DeleteRequest r) {
    return call(KvCall.newBuilder().setDelete(r), KvCallResult::getDelete);
  }

  public CompletableFuture<CompareAndSetResponse> compareAndSet(CompareAndSetRequest r) {
    return call(KvCall.newBuilder().setCompareAndSet(r), KvCallResult::getCompareAndSet);
  }

  public CompletableFuture<DeleteRangeResponse> deleteRange(DeleteRangeRequest r) {
    return call(KvCall.newBuilder().setDeleteRange(r), KvCallResult::getDeleteRange);
  }

  public CompletableFuture<BatchResponse> batch(BatchRequest r) {
    return call(KvCall.newBuilder().setBatch(r), KvCallResult::getBatch);
  }

  public CompletableFuture<ScanResponse> scan(ScanRequest r) {
    return call(KvCall.newBuilder().setScan(r), KvCallResult::getScan);
  }

  private <T> CompletableFuture<T> call(KvCall.Builder call, Function<KvCallResult, T> reply) {
    return mux.call(call, timeoutNanos).thenApply(r -> {
      if (r.hasError()) {
        throw RangeKvErrors.toStatusException(r.getError());
      }
      return reply.apply(r);
    });
  }
}
