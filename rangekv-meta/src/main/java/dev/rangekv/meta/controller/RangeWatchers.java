package dev.rangekv.meta.controller;

import dev.rangekv.meta.state.MetaView;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.meta.state.MapDelta;
import dev.rangekv.meta.state.RangeWire;
import dev.rangekv.proto.GetMapResponse;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * The open {@code WatchRanges} streams of this meta replica. Each watcher holds the map version it was
 * last sent; {@link #mapChanged} (called after every applied meta entry) sends each one the changes
 * since its version, with the leader hint of every changed range. A watcher whose stream is not ready
 * (a slow client) is skipped and catches up with one combined delta when it is, so nothing queues
 * without bound. Sends run on the given executor, never on the Raft apply thread. Thread-safe.
 */
final class RangeWatchers {
  private final Supplier<MetaView> view;
  private final LongFunction<String> leaderOf;
  private final Executor executor;
  private final Set<Watcher> watchers = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean scheduled = new AtomicBoolean();

  RangeWatchers(Supplier<MetaView> view, LongFunction<String> leaderOf, Executor executor) {
    this.view = view;
    this.leaderOf = leaderOf;
    this.executor = executor;
  }

  /** Opens a watch: sends the changes since {@code sinceVersion} now, the later ones as they apply. */
  void add(long sinceVersion, StreamObserver<GetMapResponse> out) {
    Watcher w = new Watcher(out, sinceVersion);
    if (out instanceof ServerCallStreamObserver<GetMapResponse> call) {
      call.setOnCancelHandler(() -> watchers.remove(w));
      call.setOnReadyHandler(() -> executor.execute(() -> w.catchUp(view.get())));
    }
    watchers.add(w);
    w.catchUp(view.get());
  }

  /** How many streams are open. */
  int size() {
    return watchers.size();
  }

  /** Schedules one round of sends; rounds requested while one is pending fold into it. */
  void mapChanged() {
    if (watchers.isEmpty() || !scheduled.compareAndSet(false, true)) {
      return;
    }
    executor.execute(() -> {
      scheduled.set(false);
      MetaView v = view.get();
      watchers.forEach(w -> w.catchUp(v));
    });
  }

  /** Ends every stream with {@code error} (this replica stopped leading: watchers go to the new leader). */
  void closeAll(StatusRuntimeException error) {
    for (Watcher w : watchers) {
      watchers.remove(w);
      w.fail(error);
    }
  }

  private final class Watcher {
    private final StreamObserver<GetMapResponse> out;
    private long version;
    private boolean done;

    Watcher(StreamObserver<GetMapResponse> out, long version) {
      this.out = out;
      this.version = version;
    }

    synchronized void catchUp(MetaView v) {
      if (done || v.mapVersion() == 0 || (version != 0 && v.mapVersion() <= version)) {
        return;
      }
      if (out instanceof ServerCallStreamObserver<GetMapResponse> call && (call.isCancelled() || !call.isReady())) {
        return; // cancelled: the handler removes it; not ready: the ready handler calls again
      }
      MapDelta changes = v.changesSince(version);
      GetMapResponse.Builder b = RangeWire.changes(v, changes);
      for (RangeDescriptor r : changes.ranges()) {
        String leader = leaderOf.apply(r.rangeId());
        if (!leader.isEmpty()) {
          b.putLeaderNodeIds(r.rangeId(), leader);
        }
      }
      try {
        out.onNext(b.build());
        version = changes.version();
      } catch (RuntimeException e) {
        done = true; // the call is gone (cancelled while we sent)
        watchers.remove(this);
      }
    }

    synchronized void fail(StatusRuntimeException error) {
      if (!done) {
        done = true;
        try {
          out.onError(error);
        } catch (RuntimeException ignored) {
          // already cancelled by the client: nothing to tell it
        }
      }
    }
  }
}
