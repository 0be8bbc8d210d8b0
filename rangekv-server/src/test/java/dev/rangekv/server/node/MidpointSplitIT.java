package dev.rangekv.server.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.proto.BatchRequest;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.proto.Mutation;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.admin.SplitRangeRequest;
import dev.rangekv.proto.admin.SplitRangeResponse;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.testcluster.ClusterRouter;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** SplitRange with an empty split key splits at the store's midpoint, or refuses a range without one. */
class MidpointSplitIT {
  private static final int KEYS = 2000;

  @TempDir Path dir;

  @Test
  @Timeout(120)
  void emptySplitKey_splitsNearTheMiddle_andARangeWithoutTwoKeysIsRefused() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(1, dir, RaftTuning.forTests());
        ClusterRouter router = ClusterSteps.router(cluster)) {
      router.refresh();
      ByteString value = ByteString.copyFromUtf8("v".repeat(100));
      for (int from = 0; from < KEYS; from += 100) {
        BatchRequest.Builder batch = BatchRequest.newBuilder().setWriteId(router.nextWriteId());
        for (int i = from; i < from + 100; i++) {
          batch.addMutations(Mutation.newBuilder().setPut(KeyValueProto.newBuilder().setKey(key(i)).setValue(value)));
        }
        router.call(Key.utf8("mid/"), (a, d) -> router.kv(a).batch(batch.setHeader(ClusterRouter.header(d)).build()));
      }

      SplitRangeResponse split = midpointSplit(router, "mid/");

      String at = split.getRight().getStart().toStringUtf8();
      assertThat(at).isBetween(key(KEYS * 3 / 10).toStringUtf8(), key(KEYS * 7 / 10).toStringUtf8());
      assertThat(split.getLeft().getEnd()).isEqualTo(split.getRight().getStart());
      assertThat(split.getLeft().getGeneration()).isEqualTo(1);
      router.learn(List.of(split.getLeft(), split.getRight()));
      assertThat(router.get(key(0).toStringUtf8())).isPresent();
      assertThat(router.get(key(KEYS - 1).toStringUtf8())).isPresent();
      assertThat(router.scan(Key.utf8("mid/"), Key.utf8("mid/").prefixEnd(), 0)).hasSize(KEYS);

      // [zzz, +inf) holds one key: no key lies strictly inside above its first, so no midpoint
      router.split(Key.utf8("zzz"));
      router.put("zzz/only", "1");
      StatusRuntimeException refused = (StatusRuntimeException) catchThrowable(() -> midpointSplit(router, "zzz/"));
      assertThat(refused).isNotNull();
      assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      RangeKvError error = RangeKvErrors.fromThrowable(refused).orElseThrow();
      assertThat(error.getInvalidArgument().getLimit()).isEqualTo("split_key");
      assertThat(error.getMessage()).contains("fewer than 2 keys");
      assertThat(error.getDefinitelyNotApplied()).isTrue();

      // without a meta range no one grants range ids: a split that names no child id is refused
      StatusRuntimeException noId = (StatusRuntimeException) catchThrowable(() -> router.call(Key.utf8("mid/"),
          (a, d) -> router.admin(a).splitRange(SplitRangeRequest.newBuilder().setHeader(ClusterRouter.header(d))
              .setSplitKey(key(KEYS / 10)).build())));
      assertThat(noId).isNotNull();
      RangeKvError noIdError = RangeKvErrors.fromThrowable(noId).orElseThrow();
      assertThat(noIdError.getInvalidArgument().getLimit()).isEqualTo("child_range_id");
      assertThat(noIdError.getDefinitelyNotApplied()).isTrue();
    }
  }

  private static SplitRangeResponse midpointSplit(ClusterRouter router, String inRange) {
    return router.call(Key.utf8(inRange), (a, d) -> router.admin(a).splitRange(
        SplitRangeRequest.newBuilder().setHeader(ClusterRouter.header(d)).setChildRangeId(router.splitChildId()).build()));
  }

  private static ByteString key(int i) {
    return ByteString.copyFromUtf8(String.format("mid/%05d", i));
  }
}
