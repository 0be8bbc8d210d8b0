package dev.rangekv.server.meta;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.meta.AllocateRangeIdsRequest;
import dev.rangekv.proto.meta.AllocateRangeIdsResponse;
import dev.rangekv.proto.meta.MetaNodeServiceGrpc;
import dev.rangekv.server.raft.PeerChannels;
import dev.rangekv.server.split.SplitRefusedException;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A node's child ids come from the meta leader's grants; without a meta leader the split fails typed, in time. */
@Timeout(30)
class MetaRangeIdsTest {
  private final AtomicLong next = new AtomicLong(2);
  private final AtomicInteger asked = new AtomicInteger();
  private volatile boolean leaderless;
  private final PeerChannels channels = new PeerChannels();
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private Server server;
  private MetaRangeIds ids;

  @BeforeEach
  void start() throws IOException {
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(new MetaNodeServiceGrpc.MetaNodeServiceImplBase() {
          @Override
          public void allocateRangeIds(AllocateRangeIdsRequest req, StreamObserver<AllocateRangeIdsResponse> out) {
            asked.incrementAndGet();
            if (leaderless) {
              out.onError(RangeKvErrors.toStatusException(RangeKvErrors.notLeader(0, "", "", true)));
              return;
            }
            out.onNext(AllocateRangeIdsResponse.newBuilder().setFirstRangeId(next.getAndAdd(req.getCount()))
                .setCount(req.getCount()).build());
            out.onCompleted();
          }
        }).build().start();
    String address = "127.0.0.1:" + server.getPort();
    ids = new MetaRangeIds(new MetaLocator(channels, () -> List.of(address)), executor, Duration.ofSeconds(2));
  }

  @AfterEach
  void stop() throws InterruptedException {
    channels.close();
    executor.shutdownNow();
    server.shutdownNow().awaitTermination();
  }

  @Test
  void eachSplit_takesTheNextGrantedId() {
    assertThat(ids.next().join()).isEqualTo(2);
    assertThat(ids.next().join()).isEqualTo(3);
    assertThat(asked).hasValue(2);
  }

  @Test
  void withoutAMetaLeader_theSplitFailsRetryable_afterTheDeadline() {
    leaderless = true;
    Throwable failed = org.assertj.core.api.Assertions.catchThrowable(() -> ids.next().get(20, TimeUnit.SECONDS));
    assertThat(failed).hasCauseInstanceOf(SplitRefusedException.class);
    RangeKvError error = ((SplitRefusedException) failed.getCause()).error();
    assertThat(error.hasUnavailable()).isTrue();
    assertThat(error.getDefinitelyNotApplied()).isTrue();
    assertThat(asked.get()).isGreaterThan(1);
  }
}
