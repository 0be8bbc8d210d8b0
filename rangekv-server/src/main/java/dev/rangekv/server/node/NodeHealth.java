package dev.rangekv.server.node;

import dev.rangekv.server.meta.MetaNode;
import dev.rangekv.server.observe.Readiness;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.StoreException;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import java.time.Duration;
import java.util.Optional;

/**
 * Whether a node can serve, one verdict for both the HTTP readiness probe and the standard gRPC health
 * service: not stopping, its store open, and (with a meta range configured) the meta leader answered a
 * heartbeat within three ticks (at least 5 s), so routes and stats flow.
 */
final class NodeHealth implements Readiness {
  private static final Duration MIN_META_WINDOW = Duration.ofSeconds(5);

  private final NodeStore store;
  private final Optional<MetaNode> meta;
  private final HealthStatusManager grpc = new HealthStatusManager();
  private volatile boolean stopping;

  NodeHealth(NodeStore store, Optional<MetaNode> meta) {
    this.store = store;
    this.meta = meta;
  }

  @Override
  public Verdict check() {
    if (stopping) {
      return Verdict.notReady("the node is stopping");
    }
    try {
      store.stats();
    } catch (StoreException e) {
      return Verdict.notReady("the store is closed");
    }
    if (meta.isPresent()) {
      Duration window = meta.get().tick().multipliedBy(3);
      if (window.compareTo(MIN_META_WINDOW) < 0) {
        window = MIN_META_WINDOW;
      }
      if (!meta.get().metaAnsweredWithin(window)) {
        return Verdict.notReady("the meta range answered no heartbeat within " + window.toMillis() + " ms");
      }
    }
    return Verdict.READY;
  }

  /** The gRPC health service this verdict feeds. */
  HealthStatusManager grpc() {
    return grpc;
  }

  /** Sets the gRPC health status from the current verdict (called every second). */
  void publish() {
    grpc.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES,
        check().ready() ? ServingStatus.SERVING : ServingStatus.NOT_SERVING);
  }

  /** From now on the node is stopping: not ready, and the gRPC health service ends. */
  void stop() {
    stopping = true;
    grpc.enterTerminalState();
  }
}
