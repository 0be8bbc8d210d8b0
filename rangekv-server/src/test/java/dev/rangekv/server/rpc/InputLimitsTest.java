package dev.rangekv.server.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.WriteId;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class InputLimitsTest {
  private final InputLimits limits = InputLimits.defaults();

  @Test
  void keys_mustBeNonEmpty_andAtMost8KiB() {
    assertThat(limit(limits.key(ByteString.EMPTY))).isEqualTo("key.empty");
    assertThat(limits.key(ByteString.copyFrom(new byte[8192]))).isEmpty();
    assertThat(limit(limits.key(ByteString.copyFrom(new byte[8193])))).isEqualTo("key.max-bytes");
  }

  @Test
  void values_atMost1MiB() {
    assertThat(limits.value(ByteString.copyFrom(new byte[1 << 20]))).isEmpty();
    assertThat(limit(limits.value(ByteString.copyFrom(new byte[(1 << 20) + 1])))).isEqualTo("value.max-bytes");
  }

  @Test
  void spans_needLoNotAboveHi_andWritesNeedAWriteId() {
    ByteString a = ByteString.copyFromUtf8("a");
    ByteString b = ByteString.copyFromUtf8("b");
    assertThat(limits.span("scan.bounds", a, b, false)).isEmpty();
    assertThat(limits.span("scan.bounds", a, a, false)).isEmpty();
    assertThat(limits.span("scan.bounds", b, ByteString.EMPTY, true)).isEmpty();
    assertThat(limit(limits.span("scan.bounds", b, a, false))).isEqualTo("scan.bounds");
    assertThat(limit(limits.writeId(false, WriteId.getDefaultInstance()))).isEqualTo("write_id");
    assertThat(limits.writeId(true, WriteId.newBuilder().setClientId(ByteString.copyFrom(new byte[16]))
        .setRequestId(1).build())).isEmpty();
  }

  private static String limit(Optional<RangeKvError> error) {
    assertThat(error).isPresent();
    assertThat(error.get().getDefinitelyNotApplied()).isTrue();
    return error.get().getInvalidArgument().getLimit();
  }
}
