package dev.rangekv.server.replica;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.BatchRequest;
import dev.rangekv.proto.DeleteRangeSpan;
import dev.rangekv.proto.Mutation;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.proto.replica.RangeQuery;
import dev.rangekv.proto.convert.ProtoValues;
import com.google.protobuf.ByteString;
import java.util.Optional;

/**
 * Invariant 4: a request is served only when it names this range at its current generation and every
 * key (or span) lies inside the current bounds. Pure functions of the request and the descriptor, so
 * the leader's admission check and every replica's apply-time check agree.
 */
public final class RangeChecks {
  private RangeChecks() {}

  /**
   * Why {@code cmd} cannot apply to {@code d}; empty when it can. A grouped-writes entry is never refused
   * whole: each of its writes is checked on its own ({@link #refuse(BatchRequest, RangeDescriptor)}).
   */
  public static Optional<String> refuse(RangeCommand cmd, RangeDescriptor d) {
    if (cmd.hasWrites()) {
      return Optional.empty();
    }
    Optional<String> header = header(cmd.getHeader(), d);
    if (header.isPresent()) {
      return header;
    }
    return switch (cmd.getOpCase()) {
      case BATCH -> batch(cmd.getBatch(), d);
      case SPLIT -> {
        Key at = ProtoValues.key(cmd.getSplit().getSplitKey());
        long child = cmd.getSplit().getChildRangeId();
        if (child <= 0 || child == d.rangeId()) {
          yield Optional.of("split child range id " + child + " is not a new range's id");
        }
        yield d.start().compareTo(at) < 0 && d.end().isAbove(at)
            ? Optional.empty()
            : Optional.of("split key " + at + " not strictly inside " + d);
      }
      case CHANGE_REPLICAS -> cmd.getChangeReplicas().getReplicasCount() == 0
          ? Optional.of("a range needs at least one replica")
          : Optional.empty();
      case FREEZE -> Optional.empty();
      case MERGE -> {
        RangeDescriptor right = ProtoValues.descriptor(cmd.getMerge().getRight());
        yield !d.end().isInfinite() && d.end().key().equals(right.start())
            ? Optional.empty()
            : Optional.of("merge: " + right + " is not the right neighbour of " + d);
      }
      case WRITES -> Optional.empty();
      case DORMANCY -> Optional.empty();
      case INGEST -> Optional.empty(); // checked against the data at apply (SpanIngest)
      case OP_NOT_SET -> Optional.of("empty command");
    };
  }

  /** Why the client write {@code w} (its own header and mutations) cannot apply to {@code d}; empty when it can. */
  public static Optional<String> refuse(BatchRequest w, RangeDescriptor d) {
    Optional<String> header = header(w.getHeader(), d);
    return header.isPresent() ? header : batch(w, d);
  }

  /** Why {@code q} cannot be served by {@code d}; empty when it can. */
  public static Optional<String> refuse(RangeQuery q, RangeDescriptor d) {
    Optional<String> header = header(q.getHeader(), d);
    if (header.isPresent()) {
      return header;
    }
    return switch (q.getOpCase()) {
      case GET -> key(q.getGet().getKey(), d);
      case MULTI_GET -> {
        for (ByteString k : q.getMultiGet().getKeysList()) {
          Optional<String> r = key(k, d);
          if (r.isPresent()) {
            yield r;
          }
        }
        yield Optional.empty();
      }
      case SCAN -> span(q.getScan().getLo(), ProtoValues.end(q.getScan().getHi(), q.getScan().getHiInfinite()), d);
      case OP_NOT_SET -> Optional.of("empty query");
    };
  }

  static Optional<String> header(RangeHeader h, RangeDescriptor d) {
    if (h.getRangeId() != d.rangeId()) {
      return Optional.of("request for range " + h.getRangeId() + " reached range " + d.rangeId());
    }
    if (h.getGeneration() != d.generation()) {
      return Optional.of("generation " + h.getGeneration() + " is not current " + d);
    }
    return Optional.empty();
  }

  private static Optional<String> batch(BatchRequest b, RangeDescriptor d) {
    for (Mutation m : b.getMutationsList()) {
      Optional<String> r =
          switch (m.getOpCase()) {
            case PUT -> key(m.getPut().getKey(), d);
            case DELETE -> key(m.getDelete(), d);
            case CHECK -> key(m.getCheck().getKey(), d);
            case DELETE_RANGE -> {
              DeleteRangeSpan s = m.getDeleteRange();
              yield span(s.getLo(), ProtoValues.end(s.getHi(), s.getHiInfinite()), d);
            }
            case OP_NOT_SET -> Optional.of("empty mutation");
          };
      if (r.isPresent()) {
        return r;
      }
    }
    return Optional.empty();
  }

  private static Optional<String> key(ByteString key, RangeDescriptor d) {
    Key k = ProtoValues.key(key);
    return d.contains(k) ? Optional.empty() : Optional.of("key " + k + " outside " + d);
  }

  private static Optional<String> span(ByteString lo, RangeEnd hi, RangeDescriptor d) {
    Key l = ProtoValues.key(lo);
    return d.containsSpan(l, hi) ? Optional.empty() : Optional.of("span [" + l + ", " + hi + ") outside " + d);
  }
}
