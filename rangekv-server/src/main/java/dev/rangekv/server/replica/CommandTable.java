package dev.rangekv.server.replica;

import dev.rangekv.proto.replica.RangeCommand;
import java.util.EnumMap;
import java.util.Map;

/**
 * The apply dispatch of a range replica: one {@link Applier} per kind of {@link RangeCommand}, looked up
 * by the command's case. A command whose case has no applier is a broken invariant (every proposer
 * sends a known kind), so the lookup fails fast. Immutable and thread-safe.
 */
final class CommandTable {
  /** Applies one command that passed the replica's checks into {@code entry}'s write batch. */
  interface Applier {
    Applied apply(RangeReplica.Entry entry);
  }

  private final Map<RangeCommand.OpCase, Applier> appliers;

  CommandTable(Map<RangeCommand.OpCase, Applier> appliers) {
    this.appliers = new EnumMap<>(appliers);
  }

  Applier applierOf(RangeCommand cmd) {
    Applier a = appliers.get(cmd.getOpCase());
    if (a == null) {
      throw new IllegalStateException("every range command kind has an applier: none for " + cmd.getOpCase());
    }
    return a;
  }
}
