package dev.rangekv.testkit.linearizability;

import java.util.Optional;

/** What a client asked of one key's register. */
public sealed interface Call {

  /** Sets the value. */
  record Put(String value) implements Call {}

  /** Reads the value (or absence). */
  record Get() implements Call {}

  /** Removes the value. */
  record Delete() implements Call {}

  /** Sets {@code next} (a value, or absence) if the register holds {@code expected} (a value, or absence). */
  record Cas(Optional<String> expected, Optional<String> next) implements Call {}
}
