package dev.rangekv.server.raft;

import dev.rangekv.proto.BatchRequest;
import dev.rangekv.proto.replica.ClientWrites;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.WriteResults;
import dev.rangekv.server.replica.RangeReplica;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * What a leader that stepped down (a leadership transfer, a lost majority) makes of the client writes it
 * had proposed and not yet seen applied, which the engine fails with an unknown outcome: they may still
 * commit under the next leader. The replica stays a follower and applies whatever the new leader
 * commits, so once it has applied an entry of a later term than the proposal's, each write is either
 * applied here (its dedupe record holds its result: the write is handed over and answered as if
 * nothing had happened) or gone for good (definitely not applied: the caller may resend it anywhere).
 * Only when neither can be told within {@link #BOUND} (the replica left the group, the new leader is
 * slow, or a write carries no write id) does the outcome stay unknown. Stateless; thread-safe.
 */
final class HandOver {
  /** How long a stepped-down leader waits for the next term's first applied entry: under a client's attempt. */
  static final Duration BOUND = Duration.ofSeconds(2);

  /** What became of the proposal. */
  sealed interface Outcome {
    /** Applied: every write's recorded result, in order. */
    record Applied(CommandResult result) implements Outcome {}

    /** Not applied, and it never will be. */
    record NotApplied() implements Outcome {}

    /** Cannot be told. */
    record Unknown() implements Outcome {}
  }

  private HandOver() {}

  /** Settles {@code writes}, proposed to {@code replica}'s group by its leader of {@code term}. */
  static CompletableFuture<Outcome> settle(RangeReplica replica, long term, ClientWrites writes) {
    return replica.appliedPast(term)
        .orTimeout(BOUND.toMillis(), TimeUnit.MILLISECONDS)
        .handle((v, timedOut) -> timedOut != null ? new Outcome.Unknown() : decide(replica, writes));
  }

  private static Outcome decide(RangeReplica replica, ClientWrites writes) {
    List<CommandResult> recorded = new ArrayList<>();
    int missing = 0;
    for (BatchRequest w : writes.getWritesList()) {
      if (!w.hasWriteId() || w.getWriteId().getClientId().isEmpty()) {
        return new Outcome.Unknown(); // no record to tell by
      }
      Optional<CommandResult> r = replica.recordedWrite(w.getWriteId());
      if (r.isPresent()) {
        recorded.add(r.get());
      } else {
        missing++;
      }
    }
    if (missing == 0) {
      return new Outcome.Applied(CommandResult.newBuilder()
          .setWrites(WriteResults.newBuilder().addAllResults(recorded)).build());
    }
    // one entry applies whole or not at all; a mix means another attempt of some write applied meanwhile
    return missing == writes.getWritesCount() ? new Outcome.NotApplied() : new Outcome.Unknown();
  }
}
