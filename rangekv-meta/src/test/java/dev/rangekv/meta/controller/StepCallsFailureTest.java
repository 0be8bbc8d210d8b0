package dev.rangekv.meta.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.proto.convert.RangeKvErrors;
import io.grpc.Status;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class StepCallsFailureTest {
  /** A failed call as {@code StepCalls} completes it: the node's status inside a CallFailedException. */
  static Throwable answered(Throwable status) {
    return new CompletionException(new StepCalls.CallFailedException(StepCalls.message(status), status));
  }

  @Test
  void notLeader_namingAnotherNode_isARedirectionThere() {
    Throwable err = answered(RangeKvErrors.toStatusException(RangeKvErrors.notLeader(1, "n3", "h:3", true)));
    StepCalls.Failure f = StepCalls.Failure.of(err, "n1");
    assertThat(f.kind()).isEqualTo(OperatorQueue.Failure.REDIRECTED);
    assertThat(f.leader()).contains("n3");
  }

  @Test
  void notLeader_namingTheCalledNodeOrNone_isARetry() {
    assertThat(StepCalls.Failure.of(answered(RangeKvErrors.toStatusException(
        RangeKvErrors.notLeader(1, "n1", "h:1", true))), "n1")).isEqualTo(
        new StepCalls.Failure(OperatorQueue.Failure.RETRY, java.util.Optional.empty()));
    assertThat(StepCalls.Failure.of(answered(RangeKvErrors.toStatusException(
        RangeKvErrors.notLeader(1, "", "", true))), "n1").kind()).isEqualTo(OperatorQueue.Failure.RETRY);
    assertThat(StepCalls.Failure.of(answered(Status.UNAVAILABLE.asRuntimeException()), "n1").kind())
        .isEqualTo(OperatorQueue.Failure.RETRY);
  }

  @Test
  void invalidArgument_isARefusal() {
    Throwable err = answered(RangeKvErrors.toStatusException(RangeKvErrors.invalidArgument("split_key", "no")));
    assertThat(StepCalls.Failure.of(err, "n1").kind()).isEqualTo(OperatorQueue.Failure.REFUSED);
  }
}
