package dev.rangekv.server.dormancy;

import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.server.replica.DormancyRecord;
import dev.rangekv.server.replica.RangeGroups;
import dev.rangekv.server.replica.ReplicaDirectory;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.RangeLocalState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.exceptions.AlreadyExistsException;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes and reopens the Raft groups of dormant ranges on this node. A closed group's directory is
 * moved from Ratis' storage directory ({@code raft/groups}) to {@code raft/dormant}, because Ratis
 * reopens every group directory it finds when it starts; reopening moves it back and adds the group
 * with {@code format=false}, so Ratis recovers the division (log, term, vote) from it. Which place a
 * directory belongs in follows the store's dormancy mark: {@link #parkAtStart} restores that after a
 * crash between a mark and a move. Opens and closes of one range are serialised here (closes run on
 * their own threads: closing a Ratis division takes up to a second, and queued behind closes, the group
 * thread's opens of woken ranges and of new split children waited seconds).
 */
public final class DormantGroups {
  private static final Logger log = LoggerFactory.getLogger(DormantGroups.class);

  private final RaftServer server;
  private final ReplicaDirectory directory;
  private final Path groupsDir;
  private final Path dormantDir;
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();
  private final Map<Long, Object> locks = new ConcurrentHashMap<>();

  public DormantGroups(RaftServer server, ReplicaDirectory directory, Path raftDir) {
    this.server = server;
    this.directory = directory;
    this.groupsDir = groupsDir(raftDir);
    this.dormantDir = dormantDir(raftDir);
  }

  static Path groupsDir(Path raftDir) {
    return raftDir.resolve("groups"); // RaftTuning's storage directory
  }

  static Path dormantDir(Path raftDir) {
    return raftDir.resolve("dormant");
  }

  private static String dirName(long rangeId) {
    return RangeGroups.groupId(rangeId).getUuid().toString();
  }

  /**
   * Before Ratis starts: every range marked dormant has its group directory parked, every range not
   * marked has it in Ratis' storage, so Ratis opens exactly the awake ranges.
   */
  public static void parkAtStart(NodeStore store, Path raftDir) throws IOException {
    Path groups = groupsDir(raftDir);
    Path dormant = dormantDir(raftDir);
    Files.createDirectories(dormant);
    int parked = 0;
    for (RangeLocalState s : store.allRangeStates()) {
      boolean isDormant = DormancyRecord.dormantAt(store, s.rangeId()).isPresent();
      Path from = (isDormant ? groups : dormant).resolve(dirName(s.rangeId()));
      Path to = (isDormant ? dormant : groups).resolve(dirName(s.rangeId()));
      if (Files.isDirectory(from) && !Files.exists(to)) {
        Files.createDirectories(to.getParent());
        Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
      }
      if (isDormant) {
        parked++;
      }
    }
    log.info("dormant ranges left closed at start count={}", parked);
  }

  /** True when this node runs {@code rangeId}'s group. */
  public boolean isOpen(long rangeId) {
    RaftGroupId id = RangeGroups.groupId(rangeId);
    for (RaftGroupId g : server.getGroupIds()) {
      if (g.equals(id)) {
        return true;
      }
    }
    return false;
  }

  /** Removes {@code rangeId}'s group from the Raft server, its storage kept; fails as {@code what} failed. */
  private void unregister(long rangeId, String what) throws IOException {
    RaftClientReply reply = server.groupManagement(GroupManagementRequest.newRemove(clientId, server.getId(),
        callIds.incrementAndGet(), RangeGroups.groupId(rangeId), false, false));
    if (!reply.isSuccess()) {
      throw new IOException(what + " failed", reply.getException());
    }
  }

  private boolean closedByRatis(long rangeId) {
    try {
      return server.getDivision(RangeGroups.groupId(rangeId)).getInfo().getLifeCycleState().isClosingOrClosed();
    } catch (IOException e) {
      return false; // removed meanwhile: the add below opens it
    }
  }

  private Object lock(long rangeId) {
    return locks.computeIfAbsent(rangeId, id -> new Object());
  }

  /**
   * Closes {@code rangeId}'s group, keeping its storage (parked), if {@code stillDormant} holds once no
   * open of the range runs; false when it was not open or no longer dormant.
   */
  public boolean close(long rangeId, BooleanSupplier stillDormant) throws IOException {
    synchronized (lock(rangeId)) {
      return isOpen(rangeId) && stillDormant.getAsBoolean() && closeNow(rangeId);
    }
  }

  private boolean closeNow(long rangeId) throws IOException {
    unregister(rangeId, "closing the group of dormant range " + rangeId);
    Path from = groupsDir.resolve(dirName(rangeId));
    Path to = dormantDir.resolve(dirName(rangeId));
    if (Files.isDirectory(from)) {
      Files.createDirectories(dormantDir);
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
    }
    log.info("range group closed (dormant) rangeId={}", rangeId);
    return true;
  }

  /**
   * Reopens {@code rangeId}'s group from its parked storage with its recorded peers; false when it was
   * open already or this node holds no replica of it.
   */
  public boolean open(long rangeId) throws IOException {
    synchronized (lock(rangeId)) {
      return openNow(rangeId);
    }
  }

  private boolean openNow(long rangeId) throws IOException {
    if (isOpen(rangeId)) {
      if (!closedByRatis(rangeId)) {
        return false;
      }
      // Ratis closed this replica on its own and kept it registered: it refuses every append (state
      // CLOSED), so no wake ever found a leader here (ManyDormantRangesIT: a child whose group was being
      // added when its node stopped never converged after the restart). Unregister it, storage kept,
      // and open it again below.
      log.warn("a closed replica group is removed before it is opened again rangeId={}", rangeId);
      unregister(rangeId, "removing the closed group of range " + rangeId);
    }
    List<RaftReplica> replicas = directory.replicaRecord(rangeId);
    if (replicas.stream().noneMatch(r -> r.getNodeId().equals(server.getId().toString()))) {
      return false;
    }
    Path parked = dormantDir.resolve(dirName(rangeId));
    Path live = groupsDir.resolve(dirName(rangeId));
    if (Files.isDirectory(parked) && !Files.exists(live)) {
      Files.move(parked, live, StandardCopyOption.ATOMIC_MOVE);
    }
    boolean recover = Files.isDirectory(live);
    try {
      RaftClientReply reply = server.groupManagement(GroupManagementRequest.newAdd(clientId, server.getId(),
          callIds.incrementAndGet(), RangeGroups.group(rangeId, replicas), !recover));
      if (!reply.isSuccess() && !((Throwable) reply.getException() instanceof AlreadyExistsException)) {
        throw new IOException("reopening the group of dormant range " + rangeId + " failed", reply.getException());
      }
    } catch (AlreadyExistsException e) {
      return false;
    }
    log.info("range group reopened rangeId={} recovered={}", rangeId, recover);
    return true;
  }
}
