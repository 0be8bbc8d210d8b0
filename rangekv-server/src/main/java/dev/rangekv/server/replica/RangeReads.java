package dev.rangekv.server.replica;

import com.google.protobuf.UnsafeByteOperations;
import dev.rangekv.proto.GetResponse;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.proto.MultiGetResponse;
import dev.rangekv.proto.OptionalValue;
import dev.rangekv.proto.ScanRequest;
import dev.rangekv.proto.ScanResponse;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.QueryResult;
import dev.rangekv.proto.replica.RangeQuery;
import dev.rangekv.storage.KeyValue;
import dev.rangekv.storage.NodeStore;
import java.util.List;
import java.util.Optional;

/**
 * The reads of a range replica, once its state machine has admitted the query (range ready, not frozen,
 * keys inside the descriptor): values are wrapped, not copied, into the answer.
 */
final class RangeReads {
  private RangeReads() {}

  static QueryResult read(NodeStore store, RangeQuery q) {
    return switch (q.getOpCase()) {
      case GET -> {
        Optional<byte[]> v = store.get(ProtoValues.key(q.getGet().getKey()));
        GetResponse.Builder b = GetResponse.newBuilder().setFound(v.isPresent());
        v.ifPresent(bytes -> b.setValue(UnsafeByteOperations.unsafeWrap(bytes)));
        yield QueryResult.newBuilder().setGet(b).build();
      }
      case MULTI_GET -> {
        MultiGetResponse.Builder b = MultiGetResponse.newBuilder();
        List<Optional<byte[]>> values =
            store.multiGet(q.getMultiGet().getKeysList().stream().map(ProtoValues::key).toList());
        for (Optional<byte[]> v : values) {
          OptionalValue.Builder ov = OptionalValue.newBuilder().setFound(v.isPresent());
          v.ifPresent(bytes -> ov.setValue(UnsafeByteOperations.unsafeWrap(bytes)));
          b.addValues(ov);
        }
        yield QueryResult.newBuilder().setMultiGet(b).build();
      }
      case SCAN -> {
        ScanRequest s = q.getScan();
        // uint32 on the wire: 2^31 and above arrive as negative ints and mean "that many", i.e. no limit
        int limit = s.getLimit() == 0 || s.getLimit() < 0 ? Integer.MAX_VALUE : s.getLimit();
        ScanResponse.Builder b = ScanResponse.newBuilder();
        for (KeyValue kv : store.scan(ProtoValues.key(s.getLo()), ProtoValues.end(s.getHi(), s.getHiInfinite()),
            limit, s.getReverse())) {
          b.addEntries(KeyValueProto.newBuilder()
              .setKey(ProtoValues.bytes(kv.key()))
              .setValue(UnsafeByteOperations.unsafeWrap(kv.value())));
        }
        yield QueryResult.newBuilder().setScan(b).build();
      }
      case OP_NOT_SET -> QueryResult.newBuilder()
          .setError(RangeKvErrors.invalidArgument("query", "empty query"))
          .build();
    };
  }
}
