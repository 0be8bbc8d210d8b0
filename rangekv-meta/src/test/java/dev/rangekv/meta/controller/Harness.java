package dev.rangekv.meta.controller;

import static dev.rangekv.meta.state.WireView.wire;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.controller.TickPlan;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.operator.StepTimeouts;
import dev.rangekv.proto.EventProto;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.calls.UnaryCalls;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.meta.HeartbeatResponse;
import dev.rangekv.proto.meta.RegisterNodeRequest;
import dev.rangekv.proto.meta.RegisterNodeResponse;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/** The controller wired to the in-memory meta double, a fake cluster's nodes and a manual clock. */
final class Harness {
  static final ControllerConfig CONFIG = ControllerConfig.builder().maxBytes(10_000).splitQps(1000).tickMillis(1000)
      .splitCooldownMillis(5000).deadNodeTimeoutMillis(3000).loadSplitMinSamples(50).build();

  final AtomicLong clock = new AtomicLong(1_000_000);
  final InMemoryMetaGroup meta = new InMemoryMetaGroup();
  final FakeCluster cluster;
  final FakeNodes nodes;
  final Controller controller;
  final MetaServiceImpl service;
  final MetaNodeServiceImpl nodeService;

  Harness(FakeCluster cluster) {
    this(cluster, CONFIG, Runnable::run);
  }

  /** @param slow where the fake nodes finish added replicas held by a move gate */
  Harness(FakeCluster cluster, ControllerConfig config, Executor slow) {
    this.cluster = cluster;
    this.nodes = new FakeNodes(cluster, slow);
    this.controller = new Controller(meta, nodes::channel, config, StepTimeouts.DEFAULTS, 0, clock::get);
    this.service = new MetaServiceImpl(meta, controller, clock::get);
    this.nodeService = new MetaNodeServiceImpl(meta, controller, clock::get);
  }

  /**
   * Installs the cluster's map, registers its live nodes through the service and heartbeats them once
   * (so the leaders are known, as they are a tick after a node starts).
   */
  Harness start() {
    meta.bootstrap(cluster.descriptors(), List.of());
    cluster.liveNodes().forEach(this::register);
    heartbeatAll();
    return this;
  }

  RegisterNodeResponse register(String nodeId) {
    return call(nodeService::registerNode, RegisterNodeRequest.newBuilder().setNode(FakeCluster.record(nodeId)).build());
  }

  void heartbeatAll() {
    for (String n : cluster.liveNodes()) {
      HeartbeatResponse r = call(nodeService::heartbeat, cluster.heartbeat(n, controller.config().tickMillis()));
      assertThat(r.getMapVersion()).isPositive();
    }
  }

  /** Advances the clock by one tick, heartbeats every live node, ticks. */
  Optional<TickPlan> tick() {
    clock.addAndGet(controller.config().tickMillis());
    heartbeatAll();
    return controller.tick(clock.get());
  }

  List<EventProto> events(String kind) {
    return meta.events(kind);
  }

  /** The meta map tiles the keyspace and equals the cluster model's map. */
  void assertMapMatchesCluster() {
    List<RangeDescriptorProto> map = wire(meta.view()).ranges();
    assertThat(ProtoValues.key(map.get(0).getStart())).isEqualTo(Key.EMPTY);
    for (int i = 1; i < map.size(); i++) {
      assertThat(map.get(i - 1).getEnd()).isEqualTo(map.get(i).getStart());
    }
    assertThat(map.get(map.size() - 1).getEndInfinite()).isTrue();
    assertThat(map).isEqualTo(cluster.descriptors());
  }

  static <Q, T> T call(BiConsumer<Q, StreamObserver<T>> rpc, Q request) {
    try {
      return UnaryCalls.future(rpc, request).get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("rpc failed: " + e.getCause(), e);
    }
  }

  static <Q, T> Throwable callFailing(BiConsumer<Q, StreamObserver<T>> rpc, Q request) {
    try {
      T value = UnaryCalls.future(rpc, request).get(10, TimeUnit.SECONDS);
      throw new AssertionError("expected a failure, got " + value);
    } catch (java.util.concurrent.ExecutionException e) {
      return e.getCause();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
