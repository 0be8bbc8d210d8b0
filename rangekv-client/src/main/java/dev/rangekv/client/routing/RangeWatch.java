package dev.rangekv.client.routing;

import dev.rangekv.proto.GetMapResponse;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.WatchRangesRequest;
import dev.rangekv.proto.convert.RangeKvErrors;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Keeps a {@code WatchRanges} stream open to the meta leader and folds every pushed change into the
 * cache, so a long-lived client learns of a split or move before a request finds out. The stream starts
 * at the map version the cache was filled at and resumes from the last version received; when it ends
 * (meta failover, a node down) it reopens at the redirect's hint at once, or after {@link #RETRY} at the
 * next address. Routing never depends on it: misses and RANGE_MOVED work the same without it.
 * Thread-safe; one stream at a time.
 */
public final class RangeWatch implements AutoCloseable {
  /** The pause before reopening a stream that ended without a hint. */
  static final Duration RETRY = Duration.ofMillis(500);

  private final MetaRangeSource meta;
  private final NodeChannels channels;
  private final RouteCache cache;
  private final ScheduledExecutorService timer;
  private final RouteStats stats;
  private volatile long version;
  private volatile boolean closed;
  private volatile ClientCallStreamObserver<WatchRangesRequest> call;

  public RangeWatch(MetaRangeSource meta, NodeChannels channels, RouteCache cache, ScheduledExecutorService timer,
      RouteStats stats) {
    this.meta = meta;
    this.channels = channels;
    this.cache = cache;
    this.timer = timer;
    this.stats = stats;
  }

  /** Opens the stream at the meta range (from the version the cache was last filled at). */
  public void start() {
    version = meta.mapVersion();
    open(meta.metaAddress(), 0);
  }

  /** The last map version received. */
  public long version() {
    return version;
  }

  private void open(String address, int hops) {
    if (closed) {
      return;
    }
    stats.metaCall();
    try {
      channels.meta(address).watchRanges(WatchRangesRequest.newBuilder().setSinceVersion(version).build(),
          new Observer(address, hops));
    } catch (RuntimeException e) {
      closed = true; // the client closed its channels
    }
  }

  private void reopenLater(String address) {
    if (closed) {
      return;
    }
    try {
      timer.schedule(() -> open(address, 0), RETRY.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      closed = true;
    }
  }

  @Override
  public void close() {
    closed = true;
    ClientCallStreamObserver<WatchRangesRequest> c = call;
    if (c != null) {
      c.cancel("client closed", null);
    }
  }

  private final class Observer implements ClientResponseObserver<WatchRangesRequest, GetMapResponse> {
    private final String address;
    /** Redirects followed at once before this stream; more wait {@link #RETRY} (stale hints may circle). */
    private final int hops;

    Observer(String address, int hops) {
      this.address = address;
      this.hops = hops;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<WatchRangesRequest> requestStream) {
      call = requestStream;
    }

    @Override
    public void onNext(GetMapResponse changes) {
      meta.learnMetaLeader(address);
      stats.watchUpdate();
      cache.learnSnapshot(MetaRangeSource.snapshot(changes));
      version = Math.max(version, changes.getVersion());
    }

    @Override
    public void onError(Throwable t) {
      if (closed) {
        return;
      }
      Optional<RangeKvError> typed = RangeKvErrors.fromThrowable(t);
      String hint = typed.filter(RangeKvError::hasNotLeader).map(e -> e.getNotLeader().getLeaderAddress()).orElse("");
      if (!hint.isEmpty() && !hint.equals(address)) {
        meta.learnMetaLeader(hint);
        if (hops < 2) {
          open(hint, hops + 1);
        } else {
          reopenLater(hint);
        }
        return;
      }
      meta.metaFailed(address);
      reopenLater(meta.metaAddress());
    }

    @Override
    public void onCompleted() {
      reopenLater(meta.metaAddress());
    }
  }
}
