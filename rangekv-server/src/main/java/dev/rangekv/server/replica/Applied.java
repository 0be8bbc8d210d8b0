package dev.rangekv.server.replica;

import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.DormancyCommand;
import dev.rangekv.proto.replica.IngestCommand;
import dev.rangekv.server.split.SplitApplier.SplitOutcome;
import java.util.List;
import java.util.Optional;

/**
 * What applying one command produced: its result, and what the replica does once the entry's batch is
 * durable (a split's new descriptors, a descriptor change, a dormancy mark, spans whose space to reclaim,
 * restore files whose staged copies to drop).
 */
record Applied(CommandResult result, Optional<SplitOutcome> split, Optional<DescriptorChangeApplier.Outcome> change,
    Optional<DormancyCommand> dormancy, List<CommandApplier.Span> deletedSpans, Optional<IngestCommand> ingested) {
  Applied {
    deletedSpans = List.copyOf(deletedSpans);
  }

  static Applied of(CommandResult result) {
    return new Applied(result, Optional.empty(), Optional.empty(), Optional.empty(), List.of(), Optional.empty());
  }
}
