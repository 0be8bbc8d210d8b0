package dev.rangekv.testkit.linearizability;

import java.util.Optional;

/** What a client was told about one {@link Call}. */
public sealed interface Result {

  /** A put or delete was acknowledged. */
  record Done() implements Result {}

  /** A get returned {@code value} (empty: the key was absent). */
  record Read(Optional<String> value) implements Result {}

  /** A compare-and-set applied. */
  record Swapped() implements Result {}

  /** A compare-and-set did not apply: the register held {@code found} (empty: absent). */
  record Refused(Optional<String> found) implements Result {}

  /** Never told: the call may have taken effect once, at any time after its invocation, or never. */
  record Unknown() implements Result {}
}
