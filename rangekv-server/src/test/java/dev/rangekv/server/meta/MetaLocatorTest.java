package dev.rangekv.server.meta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.proto.AdminSplitRequest;
import dev.rangekv.proto.AdminSplitResponse;
import dev.rangekv.proto.MetaServiceGrpc;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.server.raft.PeerChannels;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Which failures a locator retries: reads after any routing failure, changes only when they did not happen. */
@Timeout(30)
class MetaLocatorTest {
  private static final Duration DEADLINE = Duration.ofSeconds(5);
  /** The failures the fake meta leader answers split with, one per call, before it succeeds. */
  private final Queue<StatusRuntimeException> failures = new ConcurrentLinkedQueue<>();
  private final AtomicInteger splits = new AtomicInteger();
  private final PeerChannels channels = new PeerChannels();
  private Server server;
  private String address;

  @BeforeEach
  void start() throws IOException {
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(new MetaServiceGrpc.MetaServiceImplBase() {
      @Override
      public void split(AdminSplitRequest req, StreamObserver<AdminSplitResponse> out) {
        splits.incrementAndGet();
        StatusRuntimeException failure = failures.poll();
        if (failure != null) {
          out.onError(failure);
          return;
        }
        out.onNext(AdminSplitResponse.getDefaultInstance());
        out.onCompleted();
      }
    }).build().start();
    address = "127.0.0.1:" + server.getPort();
  }

  @AfterEach
  void stop() throws InterruptedException {
    channels.close();
    server.shutdownNow().awaitTermination();
  }

  private AdminSplitResponse split(MetaLocator locator, boolean change) {
    return change ? locator.change(s -> s.split(AdminSplitRequest.getDefaultInstance()), DEADLINE)
        : locator.call(s -> s.split(AdminSplitRequest.getDefaultInstance()), DEADLINE);
  }

  private static StatusRuntimeException unavailable(boolean definitelyNotApplied) {
    return RangeKvErrors.toStatusException(RangeKvErrors.unavailable("no quorum", definitelyNotApplied));
  }

  @Test
  void aRead_isRetriedAfterAFailureThatMayHaveHappened() {
    failures.add(unavailable(false));
    assertThat(split(new MetaLocator(channels, () -> List.of(address)), false)).isNotNull();
    assertThat(splits).hasValue(2);
  }

  @Test
  void aChange_isNotRetriedWhenItMayHaveHappened() {
    failures.add(unavailable(false));
    assertThatThrownBy(() -> split(new MetaLocator(channels, () -> List.of(address)), true))
        .isInstanceOf(StatusRuntimeException.class);
    assertThat(splits).hasValue(1);
  }

  @Test
  void aChange_isRetriedWhenItDefinitelyDidNotHappen() {
    failures.add(unavailable(true));
    assertThat(split(MetaLocator.forCommand(channels, List.of(address)), true)).isNotNull();
    assertThat(splits).hasValue(2);
  }

  @Test
  void aNodeRetriesAnUntypedFailure_aCommandReportsIt() {
    failures.add(Status.INTERNAL.withDescription("boom").asRuntimeException());
    assertThat(split(new MetaLocator(channels, () -> List.of(address)), false)).isNotNull();
    assertThat(splits).hasValue(2);

    failures.add(Status.INTERNAL.withDescription("boom").asRuntimeException());
    assertThatThrownBy(() -> split(MetaLocator.forCommand(channels, List.of(address)), false))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL));
    assertThat(splits).hasValue(3);
  }
}
