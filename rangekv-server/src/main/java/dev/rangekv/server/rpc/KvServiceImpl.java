package dev.rangekv.server.rpc;

import dev.rangekv.server.raft.ProposalBuffers;

import dev.rangekv.server.raft.RaftGateway;

import com.google.protobuf.MessageLite;
import dev.rangekv.proto.BatchRequest;
import dev.rangekv.proto.BatchResponse;
import dev.rangekv.proto.CompareAndSetRequest;
import dev.rangekv.proto.CompareAndSetResponse;
import dev.rangekv.proto.Condition;
import dev.rangekv.proto.DeleteRangeRequest;
import dev.rangekv.proto.DeleteRangeResponse;
import dev.rangekv.proto.DeleteRangeSpan;
import dev.rangekv.proto.DeleteRequest;
import dev.rangekv.proto.DeleteResponse;
import dev.rangekv.proto.GetRequest;
import dev.rangekv.proto.GetResponse;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.proto.KvCallResults;
import dev.rangekv.proto.KvCalls;
import dev.rangekv.proto.KvServiceGrpc;
import dev.rangekv.proto.ListRangesRequest;
import dev.rangekv.proto.ListRangesResponse;
import dev.rangekv.proto.MultiGetRequest;
import dev.rangekv.proto.MultiGetResponse;
import dev.rangekv.proto.Mutation;
import dev.rangekv.proto.PutRequest;
import dev.rangekv.proto.PutResponse;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.ScanRequest;
import dev.rangekv.proto.ScanResponse;
import dev.rangekv.proto.WriteId;
import dev.rangekv.proto.calls.CallStream;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.QueryResult;
import dev.rangekv.proto.replica.RangeQuery;
import dev.rangekv.server.replica.RangeKvException;
import dev.rangekv.server.stats.LoadRecorder;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The client KV API of a node: input limits, then the range's group: writes through its {@link
 * ProposalBuffers} (grouped into shared entries), reads through {@link RaftGateway}.
 * Every failure reaches the client as a gRPC status with a typed {@link RangeKvError} in the trailers.
 * Served requests are recorded in the node's {@link LoadRecorder} before the reply is sent.
 */
public final class KvServiceImpl extends KvServiceGrpc.KvServiceImplBase {
  private final RaftGateway gateway;
  private final ProposalBuffers proposals;
  /** Where the calls of a call stream run (the KV handler pool). */
  private final java.util.concurrent.Executor handlers;
  /** Hears of the calls answered on call streams (the node's metrics). */
  private final CallStream.Meter streamMeter;
  private final InputLimits limits;
  private final LoadRecorder load;

  /** Completes when a range is awake on this node (at once unless it is dormant here); never fails. */
  private final java.util.function.LongFunction<CompletableFuture<Void>> awake;
  private final ReplicaListing listing;

  /**
   * @param awake wakes a dormant range before its requests run (clients see latency only)
   * @param listing this node's replicas, for {@code ListRanges}
   */
  public KvServiceImpl(RaftGateway gateway, ProposalBuffers proposals, InputLimits limits, LoadRecorder load,
      java.util.concurrent.Executor handlers, CallStream.Meter streamMeter,
      java.util.function.LongFunction<CompletableFuture<Void>> awake, ReplicaListing listing) {
    this.listing = listing;
    this.awake = awake;
    this.handlers = handlers;
    this.streamMeter = streamMeter;
    this.gateway = gateway;
    this.proposals = proposals;
    this.limits = limits;
    this.load = load;
  }

  @Override
  public StreamObserver<KvCalls> calls(StreamObserver<KvCallResults> out) {
    return CallStream.serve(this, out, handlers, streamMeter);
  }

  @Override
  public void listRanges(ListRangesRequest request, StreamObserver<ListRangesResponse> out) {
    out.onNext(listing.list());
    out.onCompleted();
  }

  @Override
  public void get(GetRequest request, StreamObserver<GetResponse> out) {
    read(out, request, () -> limits.key(request.getKey()),
        RangeQuery.newBuilder().setHeader(request.getHeader()).setGet(request), QueryResult::getGet,
        r -> load.recordGet(request.getHeader().getRangeId(), request.getKey()));
  }

  @Override
  public void multiGet(MultiGetRequest request, StreamObserver<MultiGetResponse> out) {
    read(out, request, () -> first(request.getKeysList().stream().map(limits::key).toList()),
        RangeQuery.newBuilder().setHeader(request.getHeader()).setMultiGet(request), QueryResult::getMultiGet,
        r -> load.recordMultiGet(request.getHeader().getRangeId(), request.getKeysList()));
  }

  @Override
  public void scan(ScanRequest request, StreamObserver<ScanResponse> out) {
    read(out, request, () -> limits.span("scan.bounds", request.getLo(), request.getHi(), request.getHiInfinite()),
        RangeQuery.newBuilder().setHeader(request.getHeader()).setScan(request), QueryResult::getScan,
        r -> load.recordScan(request.getHeader().getRangeId(), request, r));
  }

  @Override
  public void put(PutRequest request, StreamObserver<PutResponse> out) {
    Mutation m = Mutation.newBuilder().setPut(KeyValueProto.newBuilder().setKey(request.getKey()).setValue(request.getValue())).build();
    write(out, request, request.getHeader(), request.hasWriteId(), request.getWriteId(), List.of(m),
        r -> PutResponse.getDefaultInstance());
  }

  @Override
  public void delete(DeleteRequest request, StreamObserver<DeleteResponse> out) {
    Mutation m = Mutation.newBuilder().setDelete(request.getKey()).build();
    write(out, request, request.getHeader(), request.hasWriteId(), request.getWriteId(), List.of(m),
        r -> DeleteResponse.getDefaultInstance());
  }

  @Override
  public void compareAndSet(CompareAndSetRequest request, StreamObserver<CompareAndSetResponse> out) {
    Mutation check = Mutation.newBuilder().setCheck(Condition.newBuilder()
        .setKey(request.getKey())
        .setExpectAbsent(request.getExpectAbsent())
        .setExpectedValue(request.getExpectedValue())).build();
    Mutation set = request.getDeleteOnSuccess()
        ? Mutation.newBuilder().setDelete(request.getKey()).build()
        : Mutation.newBuilder().setPut(KeyValueProto.newBuilder().setKey(request.getKey()).setValue(request.getNewValue())).build();
    write(out, request, request.getHeader(), request.hasWriteId(), request.getWriteId(), List.of(check, set),
        r -> CompareAndSetResponse.newBuilder()
            .setSucceeded(r.getSucceeded())
            .setCurrentFound(r.getCurrentFound())
            .setCurrentValue(r.getCurrentValue())
            .build());
  }

  @Override
  public void deleteRange(DeleteRangeRequest request, StreamObserver<DeleteRangeResponse> out) {
    Mutation m = Mutation.newBuilder().setDeleteRange(DeleteRangeSpan.newBuilder()
        .setLo(request.getLo()).setHi(request.getHi()).setHiInfinite(request.getHiInfinite())).build();
    write(out, request, request.getHeader(), request.hasWriteId(), request.getWriteId(), List.of(m),
        r -> DeleteRangeResponse.getDefaultInstance());
  }

  @Override
  public void batch(BatchRequest request, StreamObserver<BatchResponse> out) {
    if (request.getMutationsCount() == 0) {
      out.onError(RangeKvErrors.toStatusException(RangeKvErrors.invalidArgument("batch.empty", "a batch needs mutations")));
      return;
    }
    write(out, request, request.getHeader(), request.hasWriteId(), request.getWriteId(), request.getMutationsList(),
        r -> r);
  }

  private <T> void write(StreamObserver<T> out, MessageLite request, RangeHeader header, boolean hasWriteId,
      WriteId writeId, List<Mutation> mutations, Function<BatchResponse, T> reply) {
    // keys and values first: a 2 MiB value is reported as the value limit, not the request size
    Optional<RangeKvError> bad = first(mutations.stream().map(limits::mutation).toList())
        .or(() -> limits.request(request))
        .or(() -> limits.writeId(hasWriteId, writeId));
    if (bad.isPresent()) {
      out.onError(RangeKvErrors.toStatusException(bad.get()));
      return;
    }
    BatchRequest write = BatchRequest.newBuilder()
        .setHeader(header)
        .setWriteId(writeId)
        .addAllMutations(mutations)
        .build();
    load.beforeWrite(header.getRangeId());
    complete(out, awake.apply(header.getRangeId()).thenCompose(v -> proposals.write(write))
        .thenApply(CommandResult::getBatch)
        .thenApply(r -> {
          load.recordWrite(header.getRangeId(), mutations, r.getSucceeded());
          return r;
        })
        .thenApply(reply));
  }

  private <T> void read(StreamObserver<T> out, MessageLite request, Supplier<Optional<RangeKvError>> check,
      RangeQuery.Builder query, Function<QueryResult, T> reply, Consumer<T> served) {
    Optional<RangeKvError> bad = limits.request(request).or(check);
    if (bad.isPresent()) {
      out.onError(RangeKvErrors.toStatusException(bad.get()));
      return;
    }
    RangeQuery q = query.build();
    complete(out, awake.apply(q.getHeader().getRangeId()).thenCompose(v -> gateway.read(q)).thenApply(reply).thenApply(r -> {
      served.accept(r);
      return r;
    }));
  }

  static <T> void complete(StreamObserver<T> out, CompletableFuture<T> future) {
    future.whenComplete((value, error) -> {
      if (error == null) {
        out.onNext(value);
        out.onCompleted();
      } else {
        out.onError(RangeKvErrors.toStatusException(toError(error)));
      }
    });
  }

  static RangeKvError toError(Throwable error) {
    Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    return e instanceof RangeKvException rke
        ? rke.error()
        : RangeKvErrors.unavailable("unexpected " + e, false);
  }

  private static Optional<RangeKvError> first(List<Optional<RangeKvError>> checks) {
    return checks.stream().flatMap(Optional::stream).findFirst();
  }

}
