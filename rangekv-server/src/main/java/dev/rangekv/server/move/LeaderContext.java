package dev.rangekv.server.move;

import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.server.raft.RaftGateway;
import dev.rangekv.server.replica.RangeGroups;
import dev.rangekv.server.replica.RangeKvException;
import dev.rangekv.server.replica.RangeStateMachine;
import dev.rangekv.server.replica.ReplicaDirectory;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;

/**
 * A range as its leader sees it when an admin operation starts: the replica, its descriptor at the
 * request's generation, its Ratis division and stable configuration. {@link #of} throws a typed
 * {@link RangeKvException} (NOT_LEADER, RANGE_MOVED, RANGE_NOT_FOUND, UNAVAILABLE) otherwise.
 */
public record LeaderContext(RangeStateMachine replica, RangeDescriptor descriptor, RaftServer.Division division) {

  public static LeaderContext of(RaftServer server, RaftGateway gateway, ReplicaDirectory directory, RangeHeader header) {
    long rangeId = header.getRangeId();
    Optional<RangeKvError> refused = gateway.leaderOrRefusal(rangeId);
    if (refused.isPresent()) {
      throw new RangeKvException(refused.get());
    }
    RangeStateMachine replica = directory.replica(rangeId)
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
    RaftServer.Division division;
    try {
      division = server.getDivision(RangeGroups.groupId(rangeId));
    } catch (IOException e) {
      throw new RangeKvException(RangeKvErrors.rangeNotFound(rangeId));
    }
    if (!division.getInfo().isLeaderReady()) {
      // a fresh leader (e.g. right after a transfer) refuses configuration changes until it committed
      // an entry of its term: send the caller back to re-locate and retry
      String self = server.getId().toString();
      throw new RangeKvException(RangeKvErrors.notLeader(rangeId, self, directory.addressOf(self), true));
    }
    LeaderContext ctx = new LeaderContext(replica, d, division);
    if (!ctx.conf().getPreviousPeers().isEmpty()) {
      throw new RangeKvException(RangeKvErrors.unavailable("range " + rangeId + " is changing its configuration", true));
    }
    return ctx;
  }

  public RaftConfiguration conf() {
    return division.getRaftConf();
  }

  public List<RaftPeer> peers() {
    return List.copyOf(conf().getCurrentPeers());
  }

  /** The node ids of the voting members, sorted. */
  public Set<String> peerIds() {
    Set<String> ids = new TreeSet<>();
    conf().getCurrentPeers().forEach(p -> ids.add(p.getId().toString()));
    return ids;
  }

  public long rangeId() {
    return descriptor.rangeId();
  }
}
