package dev.rangekv.server.split;

import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.proto.replica.RangeCommand;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What {@link SplitProposer} needs of its node: the replicas it holds and their Raft groups. An
 * interface here, implemented where the replicas and the Raft gateway live, so the split package
 * depends on neither (the replica package depends on this one for the apply step).
 */
public interface SplitHost {
  /** The descriptor of the local replica of {@code rangeId}, when it holds one and it is ready. */
  Optional<RangeDescriptor> descriptor(long rangeId);

  /** The range's voting replicas as this node recorded them (a child gets the same); empty when unknown. */
  List<RaftReplica> peers(long rangeId);

  /** Empty when this node leads {@code rangeId}; else the refusal ({@code NOT_LEADER} with a hint, ...). */
  Optional<RangeKvError> leaderOrRefusal(long rangeId);

  /** Proposes {@code cmd} in the range's group on this leader; fails with the refusal its apply answered. */
  CompletableFuture<CommandResult> propose(RangeCommand cmd);
}
