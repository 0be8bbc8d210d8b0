package dev.rangekv.server.dormancy;

import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.server.consensus.Member;
import dev.rangekv.server.consensus.RangeConsensus;
import dev.rangekv.server.replica.ReplicaDirectory;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes and reopens the groups of dormant ranges on this node, storage kept (the engine resumes a
 * reopened group's log, term and vote from it). Opens and closes of one range are serialised here
 * (closes run on their own threads: closing a group can take up to a second, and queued behind
 * closes, the group thread's opens of woken ranges and of new split children waited seconds).
 */
public final class DormantGroups {
  private static final Logger log = LoggerFactory.getLogger(DormantGroups.class);

  private final RangeConsensus consensus;
  private final ReplicaDirectory directory;
  private final Map<Long, Object> locks = new ConcurrentHashMap<>();

  public DormantGroups(RangeConsensus consensus, ReplicaDirectory directory) {
    this.consensus = consensus;
    this.directory = directory;
  }

  /** True when this node runs {@code rangeId}'s group. */
  public boolean isOpen(long rangeId) {
    return consensus.isOpen(rangeId);
  }

  private Object lock(long rangeId) {
    return locks.computeIfAbsent(rangeId, id -> new Object());
  }

  /**
   * Closes {@code rangeId}'s group, keeping its storage, if {@code stillDormant} holds once no open of
   * the range runs; false when it was not open or no longer dormant.
   */
  public boolean close(long rangeId, BooleanSupplier stillDormant) throws IOException {
    synchronized (lock(rangeId)) {
      if (!isOpen(rangeId) || !stillDormant.getAsBoolean()) {
        return false;
      }
      consensus.close(rangeId);
      log.info("range group closed (dormant) rangeId={}", rangeId);
      return true;
    }
  }

  /**
   * Reopens {@code rangeId}'s group from its kept storage with its recorded peers; false when it was
   * open already or this node holds no replica of it.
   */
  public boolean open(long rangeId) throws IOException {
    synchronized (lock(rangeId)) {
      List<RaftReplica> replicas = directory.replicaRecord(rangeId);
      if (replicas.stream().noneMatch(r -> r.getNodeId().equals(consensus.selfId()))) {
        return false;
      }
      return consensus.reopen(rangeId, Member.of(replicas));
    }
  }
}
