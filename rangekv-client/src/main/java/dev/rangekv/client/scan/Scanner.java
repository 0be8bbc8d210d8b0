package dev.rangekv.client.scan;

import dev.rangekv.client.KeyValue;
import dev.rangekv.client.routing.RangeOp;
import dev.rangekv.client.routing.Router;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.RangeMap;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.client.routing.NodeCalls;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.ScanRequest;
import dev.rangekv.proto.ScanResponse;
import dev.rangekv.proto.WriteId;
import dev.rangekv.proto.convert.ProtoValues;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Fetches scan pages through the {@link Router}: each page goes to the range the current cache names
 * for the state's next key, so a RANGE_MOVED retry re-plans from the last key received. Thread-safe.
 */
public final class Scanner {
  private final Router router;
  private final Duration timeout;

  public Scanner(Router router, Duration timeout) {
    this.router = router;
    this.timeout = timeout;
  }

  /** One page and the state after it. */
  public record Page(List<KeyValue> entries, ScanState next) {
    public Page {
      entries = List.copyOf(entries);
    }
  }

  public long deadline() {
    return router.nanoTime() + timeout.toNanos();
  }

  /** The next page of {@code state} (which must not be done), by {@code deadlineNanos}. */
  public CompletableFuture<Page> page(ScanState state, int pageSize, long deadlineNanos) {
    return router.execute(new PageOp(state, state.pageLimit(pageSize)), deadlineNanos);
  }

  /** Every remaining entry of {@code state}, page by page; each page gets its own deadline. */
  public CompletableFuture<List<KeyValue>> collect(ScanState state, int pageSize) {
    List<KeyValue> out = new ArrayList<>();
    return collect(state, pageSize, out).thenApply(v -> out);
  }

  private CompletableFuture<Void> collect(ScanState state, int pageSize, List<KeyValue> out) {
    if (state.done()) {
      return CompletableFuture.completedFuture(null);
    }
    return page(state, pageSize, deadline()).thenCompose(p -> {
      out.addAll(p.entries());
      return collect(p.next(), pageSize, out);
    });
  }

  private record PageOp(ScanState state, int limit) implements RangeOp<Page> {
    @Override
    public boolean isWrite() {
      return false;
    }

    @Override
    public Optional<RangeDescriptor> target(RangeMap map) {
      return Optional.of(state.target(map));
    }

    @Override
    public CompletableFuture<Page> send(NodeCalls calls, RangeDescriptor range, WriteId writeId) {
      Key lo = state.pieceLo(range);
      RangeEnd hi = state.pieceHi(range);
      ScanRequest request = ScanRequest.newBuilder()
          .setHeader(RangeHeader.newBuilder().setRangeId(range.rangeId()).setGeneration(range.generation()))
          .setLo(ProtoValues.bytes(lo))
          .setHi(ProtoValues.endBytes(hi))
          .setHiInfinite(hi.isInfinite())
          .setLimit(limit)
          .setReverse(state.reverse())
          .build();
      return calls.scan(request).thenApply(r -> toPage(r, lo, hi));
    }

    private Page toPage(ScanResponse response, Key lo, RangeEnd hi) {
      List<KeyValue> entries = new ArrayList<>(response.getEntriesCount());
      for (KeyValueProto kv : response.getEntriesList()) {
        entries.add(KeyValue.adopt(ProtoValues.key(kv.getKey()), kv.getValue().toByteArray()));
      }
      Key last = entries.isEmpty() ? lo : entries.get(entries.size() - 1).key();
      return new Page(entries, state.after(entries.size(), last, limit, lo, hi));
    }

    @Override
    public String describe() {
      return "scan lo=" + state.lo() + " hi=" + state.hi() + " reverse=" + state.reverse();
    }
  }
}
