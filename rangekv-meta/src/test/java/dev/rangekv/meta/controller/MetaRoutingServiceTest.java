package dev.rangekv.meta.controller;

import static dev.rangekv.meta.controller.ControllerTest.k;
import static dev.rangekv.meta.state.WireView.wire;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.proto.AdminSplitRequest;
import dev.rangekv.proto.GetMapRequest;
import dev.rangekv.proto.GetMapResponse;
import dev.rangekv.proto.LookupRequest;
import dev.rangekv.proto.LookupResponse;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.WatchRangesRequest;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.convert.RangeKvErrors;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The meta service as a route source: span lookups with leaders, the map with leaders, the watch stream. */
@Timeout(30)
class MetaRoutingServiceTest {
  static Harness twoRanges() {
    Harness h = MetaServiceImplTest.threeNodes();
    h.heartbeatAll();
    return h;
  }

  static LookupResponse lookup(Harness h, LookupRequest r) {
    return Harness.call(h.service::lookup, r);
  }

  @Test
  void lookupOfAKey_answersTheRangeHoldingIt_withItsLeader() {
    Harness h = twoRanges();
    LookupResponse r = lookup(h, LookupRequest.newBuilder().setKey(ProtoValues.bytes(k(150))).build());

    assertThat(ProtoValues.descriptor(r.getRange()).contains(k(150))).isTrue();
    assertThat(r.getFollowingList()).isEmpty();
    assertThat(r.getLeaderNodeIdsMap()).containsEntry(r.getRange().getRangeId(), "n1");
    assertThat(r.getMapVersion()).isEqualTo(h.meta.view().mapVersion());
    assertThat(r.getMore()).isFalse(); // no span asked: the one range is the whole answer
  }

  @Test
  void lookupOfASpan_answersEveryRangeOfIt_upToTheLimit() {
    Harness h = twoRanges();
    LookupResponse all = lookup(h, LookupRequest.newBuilder().setEndInfinite(true).setLimit(10).build());
    assertThat(all.getFollowingCount()).isEqualTo(1);
    assertThat(all.getMore()).isFalse();
    assertThat(all.getLeaderNodeIdsMap()).hasSize(2);

    LookupResponse firstOnly = lookup(h, LookupRequest.newBuilder().setEnd(ProtoValues.bytes(k(100))).setLimit(10).build());
    assertThat(firstOnly.getFollowingList()).isEmpty();
    assertThat(firstOnly.getMore()).isFalse();
  }

  @Test
  void getMap_carriesLeaders() {
    Harness h = twoRanges();
    GetMapResponse map = Harness.call(h.service::getMap, GetMapRequest.getDefaultInstance());
    assertThat(map.getRangesCount()).isEqualTo(2);
    assertThat(map.getLeaderNodeIdsMap()).hasSize(2);
  }

  /** Records a server stream. */
  static final class Stream implements StreamObserver<GetMapResponse> {
    final List<GetMapResponse> got = new CopyOnWriteArrayList<>();
    final AtomicReference<Throwable> error = new AtomicReference<>();

    @Override
    public void onNext(GetMapResponse v) {
      got.add(v);
    }

    @Override
    public void onError(Throwable t) {
      error.set(t);
    }

    @Override
    public void onCompleted() {
      error.set(new IllegalStateException("completed"));
    }
  }

  @Test
  void aWatcher_getsTheMapThenEachSplit_andTheStreamEndsWhenLeadershipGoes() {
    Harness h = twoRanges();
    Stream watch = new Stream();
    h.service.watchRanges(WatchRangesRequest.getDefaultInstance(), watch);
    assertThat(watch.got).hasSize(1);
    assertThat(watch.got.get(0).getRangesCount()).isEqualTo(2);
    assertThat(h.service.watchCount()).isEqualTo(1);

    h.service.mapChanged(); // an entry that did not change the map: nothing to send
    assertThat(watch.got).hasSize(1);

    RangeDescriptorProto first = wire(h.meta.view()).ranges().get(0);
    Harness.call(h.service::split, AdminSplitRequest.newBuilder().setRangeId(first.getRangeId())
        .setSplitKey(ProtoValues.bytes(k(50))).build());
    h.service.mapChanged();

    assertThat(watch.got).hasSize(2);
    GetMapResponse pushed = watch.got.get(1);
    assertThat(pushed.getVersion()).isGreaterThan(watch.got.get(0).getVersion());
    assertThat(pushed.getRangesList().stream().map(ProtoValues::descriptor).anyMatch(d -> d.contains(k(60))
        && !d.contains(k(40)))).isTrue();
    assertThat(pushed.getLeaderNodeIdsMap()).isNotEmpty();

    h.meta.setLeader(false, "n2");
    h.service.mapChanged();
    assertThat(RangeKvErrors.fromThrowable(watch.error.get()).orElseThrow().hasNotLeader()).isTrue();
    assertThat(h.service.watchCount()).isZero();
  }

  @Test
  void aWatchAskedOfANonLeader_isRedirected() {
    Harness h = twoRanges();
    h.meta.setLeader(false, "n2");
    Stream watch = new Stream();
    h.service.watchRanges(WatchRangesRequest.newBuilder().setSinceVersion(1).build(), watch);
    assertThat(watch.got).isEmpty();
    assertThat(RangeKvErrors.fromThrowable(watch.error.get()).orElseThrow().getNotLeader().getLeaderNodeId())
        .isEqualTo("n2");
  }
}
