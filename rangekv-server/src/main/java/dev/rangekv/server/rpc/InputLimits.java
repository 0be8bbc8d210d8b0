package dev.rangekv.server.rpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.MessageLite;
import dev.rangekv.core.key.Key;
import dev.rangekv.proto.Mutation;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.WriteId;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.convert.RangeKvErrors;
import java.util.Optional;

/**
 * Bad-input limits checked before anything is proposed; a violation is {@code INVALID_ARGUMENT}
 * naming the limit ({@code key.empty}, {@code key.max-bytes}, {@code value.max-bytes},
 * {@code request.max-bytes}, {@code scan.bounds}, {@code span.bounds}, {@code batch.empty},
 * {@code write_id}).
 */
public record InputLimits(int maxKeyBytes, int maxValueBytes, int maxRequestBytes) {
  /**
   * 8 KiB keys, 1 MiB values, requests of 1 MiB + 64 KiB (one largest value with its key and header).
   * The request limit bounds the largest Raft entry, and with it the direct write buffer every awake
   * range's group allocates ({@link #LARGEST_ENTRY_BYTES}).
   */
  public static InputLimits defaults() {
    return new InputLimits(8 << 10, 1 << 20, DEFAULT_MAX_REQUEST_BYTES);
  }

  /** The default request limit. */
  public static final int DEFAULT_MAX_REQUEST_BYTES = (1 << 20) + (64 << 10);

  /**
   * The largest Raft entry a range proposes with the default limits: the proposal buffer puts at most
   * 1 MiB of writes into one entry unless a single write is larger (it then goes alone), so an entry is
   * at most one request plus the command's framing (a few bytes per grouped write, at most 256 writes),
   * well under 64 KiB.
   */
  public static final int LARGEST_ENTRY_BYTES = DEFAULT_MAX_REQUEST_BYTES + (64 << 10);

  Optional<RangeKvError> request(MessageLite request) {
    int size = request.getSerializedSize();
    return size > maxRequestBytes
        ? fail("request.max-bytes", "request of " + size + " bytes exceeds the request limit of " + bytes(maxRequestBytes))
        : Optional.empty();
  }

  Optional<RangeKvError> key(ByteString key) {
    if (key.isEmpty()) {
      return fail("key.empty", "keys must not be empty");
    }
    return key.size() > maxKeyBytes
        ? fail("key.max-bytes", "key of " + key.size() + " bytes exceeds the key limit of " + bytes(maxKeyBytes))
        : Optional.empty();
  }

  Optional<RangeKvError> value(ByteString value) {
    return value.size() > maxValueBytes
        ? fail("value.max-bytes", "value of " + value.size() + " bytes exceeds the value limit of " + bytes(maxValueBytes))
        : Optional.empty();
  }

  Optional<RangeKvError> writeId(boolean present, WriteId id) {
    return present && id.getClientId().size() == 16 && id.getRequestId() > 0
        ? Optional.empty()
        : fail("write_id", "writes need a 16-byte client id and a positive request id");
  }

  /** {@code [lo, hi)} with {@code lo <= hi}; the bound keys obey the key size limit. */
  Optional<RangeKvError> span(String limit, ByteString lo, ByteString hi, boolean hiInfinite) {
    if (lo.size() > maxKeyBytes || hi.size() > maxKeyBytes) {
      return fail("key.max-bytes", "span bound exceeds " + maxKeyBytes + " bytes");
    }
    if (!hiInfinite) {
      Key l = ProtoValues.key(lo);
      Key h = ProtoValues.key(hi);
      if (l.compareTo(h) > 0) {
        return fail(limit, "lo " + l + " > hi " + h);
      }
    }
    return Optional.empty();
  }

  Optional<RangeKvError> mutation(Mutation m) {
    return switch (m.getOpCase()) {
      case PUT -> key(m.getPut().getKey()).or(() -> value(m.getPut().getValue()));
      case DELETE -> key(m.getDelete());
      case CHECK -> key(m.getCheck().getKey()).or(() -> value(m.getCheck().getExpectedValue()));
      case DELETE_RANGE -> span("span.bounds", m.getDeleteRange().getLo(), m.getDeleteRange().getHi(),
          m.getDeleteRange().getHiInfinite());
      case OP_NOT_SET -> fail("batch.empty", "a mutation has no operation");
    };
  }

  /** {@code 1048576 bytes (1 MiB)}: the exact figure, and the round one people configure. */
  static String bytes(int n) {
    if (n >= 1 << 20 && n % (1 << 20) == 0) {
      return n + " bytes (" + (n >> 20) + " MiB)";
    }
    return n >= 1 << 10 && n % (1 << 10) == 0 ? n + " bytes (" + (n >> 10) + " KiB)" : n + " bytes";
  }

  private static Optional<RangeKvError> fail(String limit, String message) {
    return Optional.of(RangeKvErrors.invalidArgument(limit, message));
  }
}
