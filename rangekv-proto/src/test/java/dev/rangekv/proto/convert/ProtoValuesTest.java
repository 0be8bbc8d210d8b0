package dev.rangekv.proto.convert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeKvError;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProtoValuesTest {

  @Test
  void descriptor_roundTripsThroughProto_withAddresses() {
    RangeDescriptor d = new RangeDescriptor(7, Key.utf8("b"), RangeEnd.INFINITY, List.of("n1", "n2"), 3);
    RangeDescriptorProto p = ProtoValues.descriptor(d, node -> node + ":1");
    assertThat(p.getReplicas(1).getAddress()).isEqualTo("n2:1");
    assertThat(ProtoValues.descriptor(p)).isEqualTo(d);

    RangeDescriptor finite = new RangeDescriptor(8, Key.EMPTY, RangeEnd.at(Key.utf8("m")), List.of("n1"), 0);
    assertThat(ProtoValues.descriptor(ProtoValues.descriptor(finite, n -> null))).isEqualTo(finite);
  }

  @Test
  void typedError_travelsInTrailers_withMatchingStatus() {
    RangeKvError error = RangeKvErrors.invalidArgument("key.max-bytes", "key of 9000 bytes");
    StatusRuntimeException e = RangeKvErrors.toStatusException(error);
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(RangeKvErrors.fromThrowable(e)).contains(error);
    assertThat(RangeKvErrors.fromThrowable(new RuntimeException("x"))).isEmpty();
  }
}
