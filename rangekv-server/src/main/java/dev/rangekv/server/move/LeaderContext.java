package dev.rangekv.server.move;

import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.server.consensus.GroupStatus;
import dev.rangekv.server.consensus.Leadership;
import dev.rangekv.server.consensus.Member;
import dev.rangekv.server.consensus.RangeConsensus;
import dev.rangekv.server.raft.RaftGateway;
import dev.rangekv.server.replica.RangeKvException;
import dev.rangekv.server.replica.RangeReplica;
import dev.rangekv.server.replica.ReplicaDirectory;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * A range as its leader sees it when an admin operation starts: the replica, its descriptor at the
 * request's generation, and its group (read live through the engine, whose configuration was stable
 * when the operation started). {@link #of} throws a typed {@link RangeKvException} (NOT_LEADER,
 * RANGE_MOVED, RANGE_NOT_FOUND, UNAVAILABLE) otherwise.
 */
public record LeaderContext(RangeReplica replica, RangeDescriptor descriptor, RangeConsensus consensus) {

  public static LeaderContext of(RangeConsensus consensus, RaftGateway gateway, ReplicaDirectory directory,
      RangeHeader header) {
    long rangeId = header.getRangeId();
    Optional<RangeKvError> refused = gateway.leaderOrRefusal(rangeId);
    if (refused.isPresent()) {
      throw new RangeKvException(refused.get());
    }
    RangeReplica replica = directory.replica(rangeId)
        .orElseThrow(() -> new RangeKvException(RangeKvErrors.rangeNotFound(rangeId)));
    RangeDescriptor d = replica.descriptor()
        .orElseThrow(() -> new RangeKvException(RangeKvErrors.unavailable("range " + rangeId + " not ready", true)));
    if (header.getGeneration() != d.generation()) {
      throw new RangeKvException(RangeKvErrors.rangeMoved(directory.movedDescriptors(d),
          "generation " + header.getGeneration() + " is not current " + d));
    }
    if (replica.isFrozen()) {
      throw new RangeKvException(RangeKvErrors.unavailable("range " + rangeId + " is frozen for a merge", true));
    }
    GroupStatus status = consensus.status(rangeId)
        .orElseThrow(() -> new RangeKvException(RangeKvErrors.rangeNotFound(rangeId)));
    if (!status.leadership().ready()) {
      // a fresh leader (e.g. right after a transfer) refuses membership changes until it committed an
      // entry of its term: send the caller back to re-locate and retry
      String self = consensus.selfId();
      throw new RangeKvException(RangeKvErrors.notLeader(rangeId, self, directory.addressOf(self), true));
    }
    if (status.changing()) {
      throw new RangeKvException(RangeKvErrors.unavailable("range " + rangeId + " is changing its configuration", true));
    }
    return new LeaderContext(replica, d, consensus);
  }

  /** The group as the engine sees it now; RANGE_NOT_FOUND once this node no longer runs it. */
  public GroupStatus status() {
    return consensus.status(rangeId())
        .orElseThrow(() -> new RangeKvException(RangeKvErrors.rangeNotFound(rangeId())));
  }

  /** True while this node still leads the range. */
  public boolean leads() {
    return consensus.leadership(rangeId()).map(Leadership::leader).orElse(false);
  }

  /** The voting members of the current configuration. */
  public List<Member> peers() {
    return status().members();
  }

  /** The node ids of the voting members, sorted. */
  public Set<String> peerIds() {
    return new TreeSet<>(status().memberIds());
  }

  public long rangeId() {
    return descriptor.rangeId();
  }
}
