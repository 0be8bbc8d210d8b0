package dev.rangekv.client.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.client.CasResult;
import dev.rangekv.client.ClientOptions;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.routing.NodeChannels;
import dev.rangekv.client.routing.NodeListRangeSource;
import dev.rangekv.client.routing.RangeSnapshot;
import dev.rangekv.client.routing.RangeSource;
import dev.rangekv.client.routing.RouteTable;
import dev.rangekv.core.key.Key;
import dev.rangekv.proto.KvCall;
import dev.rangekv.proto.KvCallResult;
import dev.rangekv.proto.KvCallResults;
import dev.rangekv.proto.KvCalls;
import dev.rangekv.proto.KvServiceGrpc;
import dev.rangekv.proto.WriteId;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import dev.rangekv.testkit.Await;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reply of a refused compare-and-set is lost: the client, with the default options, retries under the
 * same write id, and the node answers the retry from its dedupe record, which must hold the refused
 * check's current value as the first attempt saw it (not "absent", not the value written since). The
 * client talks to the node through a proxy that forwards its call stream and drops that one reply.
 */
class RefusedCasRetryIT {
  @TempDir Path dir;

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void aRefusedCasWhoseReplyIsLost_retriesUnderItsWriteId_andGetsTheValueTheFirstAttemptSaw() throws Exception {
    Key key = Key.utf8("account");
    try (LocalCluster cluster = LocalCluster.start(1, dir, RaftTuning.forTests());
        NodeChannels channels = new NodeChannels()) {
      String node = cluster.config(0).clientAddress();
      ManagedChannel toNode = Grpc.newChannelBuilder(node, InsecureChannelCredentials.create()).build();
      DroppingProxy proxy = new DroppingProxy(toNode);
      Server server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create()).addService(proxy).build().start();
      String proxied = "127.0.0.1:" + server.getPort();
      RangeSource viaProxy = new ViaProxy(new NodeListRangeSource(List.of(node), channels, Duration.ofSeconds(2)), proxied);
      try (RangeKvClient direct = RangeKvClient.connect(List.of(node), ClientOptions.defaults());
          RangeKvClient client = RangeKvClient.connect(viaProxy, ClientOptions.defaults())) {
        TestCluster.awaitServing(direct);
        direct.put(key, bytes("seen-first"));
        proxy.dropNextRefusedCas.set(true);

        CompletableFuture<CasResult> cas = client.compareAndSetAsync(key, Optional.of(bytes("stale")),
            Optional.of(bytes("never")));
        Await.until(Duration.ofSeconds(20), "the refused reply dropped", () -> proxy.dropped.size() == 1);
        direct.put(key, bytes("written-since")); // before the retry: the attempt timeout is 3 s
        CasResult r = cas.get(30, TimeUnit.SECONDS);

        assertThat(r.succeeded()).isFalse();
        assertThat(r.current().map(RefusedCasRetryIT::text)).as("the first attempt's view, from the dedupe record")
            .contains("seen-first");
        assertThat(proxy.casWriteIds).as("the retry went under the first attempt's write id")
            .hasSizeGreaterThanOrEqualTo(2).allMatch(id -> id.equals(proxy.casWriteIds.get(0)));
        assertThat(direct.get(key).map(RefusedCasRetryIT::text)).contains("written-since");
      } finally {
        server.shutdownNow();
        toNode.shutdownNow();
      }
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }

  private static String text(byte[] b) {
    return new String(b, UTF_8);
  }

  /** The node's listings, with every node's address replaced by the proxy's. */
  private record ViaProxy(RangeSource nodes, String proxy) implements RangeSource {
    @Override
    public CompletableFuture<RangeSnapshot> fetch(RouteTable known) {
      return nodes.fetch(known).thenApply(s -> {
        Map<String, String> addresses = new HashMap<>();
        s.addresses().keySet().forEach(id -> addresses.put(id, proxy));
        s.descriptors().forEach(d -> d.replicas().forEach(id -> addresses.put(id, proxy)));
        return new RangeSnapshot(s.descriptors(), addresses, s.leaders(), s.fromFallback());
      });
    }
  }

  /** Forwards each client call stream to the node; drops one refused compare-and-set's result when armed. */
  private static final class DroppingProxy extends KvServiceGrpc.KvServiceImplBase {
    final AtomicBoolean dropNextRefusedCas = new AtomicBoolean();
    final List<KvCallResult> dropped = new CopyOnWriteArrayList<>();
    final List<WriteId> casWriteIds = new CopyOnWriteArrayList<>();
    private final ManagedChannel node;

    DroppingProxy(ManagedChannel node) {
      this.node = node;
    }

    @Override
    public StreamObserver<KvCalls> calls(StreamObserver<KvCallResults> client) {
      StreamObserver<KvCalls> toNode = KvServiceGrpc.newStub(node).calls(new StreamObserver<>() {
        @Override
        public void onNext(KvCallResults results) {
          KvCallResults.Builder kept = KvCallResults.newBuilder();
          for (KvCallResult r : results.getResultsList()) {
            if (r.hasCompareAndSet() && !r.getCompareAndSet().getSucceeded() && dropNextRefusedCas.compareAndSet(true, false)) {
              dropped.add(r);
            } else {
              kept.addResults(r);
            }
          }
          if (kept.getResultsCount() > 0) {
            synchronized (client) {
              client.onNext(kept.build());
            }
          }
        }

        @Override
        public void onError(Throwable t) {
          synchronized (client) {
            client.onError(t);
          }
        }

        @Override
        public void onCompleted() {
          synchronized (client) {
            client.onCompleted();
          }
        }
      });
      return new StreamObserver<>() {
        @Override
        public void onNext(KvCalls calls) {
          for (KvCall c : calls.getCallsList()) {
            if (c.hasCompareAndSet()) {
              casWriteIds.add(c.getCompareAndSet().getWriteId());
            }
          }
          synchronized (toNode) {
            toNode.onNext(calls);
          }
        }

        @Override
        public void onError(Throwable t) {
          synchronized (toNode) {
            toNode.onError(t);
          }
        }

        @Override
        public void onCompleted() {
          synchronized (toNode) {
            toNode.onCompleted();
          }
        }
      };
    }
  }
}
