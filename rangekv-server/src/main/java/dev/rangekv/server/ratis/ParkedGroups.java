package dev.rangekv.server.ratis;

import dev.rangekv.server.consensus.Member;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongPredicate;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.exceptions.AlreadyExistsException;
import org.apache.ratis.protocol.exceptions.GroupMismatchException;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The range groups' lifecycle on Ratis' group management calls, and their storage layout. A group
 * closed with its storage kept (a dormant range) has its directory moved from Ratis' storage directory
 * ({@code raft/groups}, see {@link RatisProperties}) to {@code raft/dormant}, because Ratis reopens every group
 * directory it finds when it starts; reopening moves it back and adds the group with {@code format=false},
 * so Ratis recovers the division (log, term, vote) from it. {@link #parkAtStart} puts every directory
 * where the node's dormancy marks say it belongs, before Ratis starts. Callers serialise the calls for
 * one range.
 */
public final class ParkedGroups {
  private static final Logger log = LoggerFactory.getLogger(ParkedGroups.class);

  private final RaftServer server;
  private final Path groupsDir;
  private final Path dormantDir;
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();

  public ParkedGroups(RaftServer server, Path raftDir) {
    this.server = server;
    this.groupsDir = groupsDir(raftDir);
    this.dormantDir = dormantDir(raftDir);
  }

  static Path groupsDir(Path raftDir) {
    return raftDir.resolve("groups"); // RatisProperties' storage directory
  }

  static Path dormantDir(Path raftDir) {
    return raftDir.resolve("dormant");
  }

  private static String dirName(long rangeId) {
    return RangeGroups.groupId(rangeId).getUuid().toString();
  }

  /**
   * Before Ratis starts: the group directory of every range in {@code ranges} that {@code dormant} holds
   * is parked, every other one is in Ratis' storage, so Ratis opens exactly the awake ranges.
   */
  public static void parkAtStart(Iterable<Long> ranges, LongPredicate dormant, Path raftDir) throws IOException {
    Path groups = groupsDir(raftDir);
    Path parkedDir = dormantDir(raftDir);
    Files.createDirectories(parkedDir);
    int parked = 0;
    for (long rangeId : ranges) {
      boolean isDormant = dormant.test(rangeId);
      Path from = (isDormant ? groups : parkedDir).resolve(dirName(rangeId));
      Path to = (isDormant ? parkedDir : groups).resolve(dirName(rangeId));
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

  private boolean running(RaftGroupId id) {
    for (RaftGroupId g : server.getGroupIds()) {
      if (g.equals(id)) {
        return true;
      }
    }
    return false;
  }

  /** Adds {@code rangeId}'s group with {@code members}; false when it exists already. */
  boolean add(long rangeId, List<Member> members, boolean format) throws IOException {
    return add(RangeGroups.group(rangeId, members), format, "adding the group of range " + rangeId);
  }

  private boolean add(RaftGroup group, boolean format, String what) throws IOException {
    try {
      RaftClientReply reply = server.groupManagement(GroupManagementRequest.newAdd(clientId, server.getId(),
          callIds.incrementAndGet(), group, format));
      if (reply.isSuccess()) {
        return true;
      }
      if ((Throwable) reply.getException() instanceof AlreadyExistsException) {
        return false;
      }
      throw new IOException(what + " failed", reply.getException());
    } catch (AlreadyExistsException e) {
      return false;
    }
  }

  /**
   * Starts {@code rangeId}'s group here with an empty peer list (it never campaigns; the leader's
   * configuration change brings it in).
   */
  void addEmpty(long rangeId) throws IOException {
    add(RaftGroup.valueOf(RangeGroups.groupId(rangeId)), true, "adding the empty group of range " + rangeId);
  }

  /** Removes {@code rangeId}'s group and its Raft storage; a no-op when it does not run. */
  void remove(long rangeId) throws IOException {
    RaftGroupId groupId = RangeGroups.groupId(rangeId);
    if (!running(groupId)) {
      return;
    }
    try {
      RaftClientReply reply = server.groupManagement(GroupManagementRequest.newRemove(
          clientId, server.getId(), callIds.incrementAndGet(), groupId, true, false));
      if (!reply.isSuccess() && !((Throwable) reply.getException() instanceof GroupMismatchException)) {
        throw new IOException("removing group failed groupId=" + groupId, reply.getException());
      }
    } catch (GroupMismatchException e) {
      // already gone
    }
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
      return false; // removed meanwhile: the add opens it
    }
  }

  /** Stops {@code rangeId}'s group and parks its storage. */
  void park(long rangeId) throws IOException {
    unregister(rangeId, "closing the group of dormant range " + rangeId);
    Path from = groupsDir.resolve(dirName(rangeId));
    Path to = dormantDir.resolve(dirName(rangeId));
    if (Files.isDirectory(from)) {
      Files.createDirectories(dormantDir);
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
    }
  }

  /**
   * Reopens {@code rangeId}'s group from its parked storage (or fresh storage when none is parked) with
   * {@code members}; false when it runs already.
   */
  boolean unpark(long rangeId, List<Member> members) throws IOException {
    if (running(RangeGroups.groupId(rangeId))) {
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
    Path parkedDir = dormantDir.resolve(dirName(rangeId));
    Path live = groupsDir.resolve(dirName(rangeId));
    if (Files.isDirectory(parkedDir) && !Files.exists(live)) {
      Files.move(parkedDir, live, StandardCopyOption.ATOMIC_MOVE);
    }
    boolean recover = Files.isDirectory(live);
    boolean added = add(RangeGroups.group(rangeId, members), !recover, "reopening the group of dormant range " + rangeId);
    if (added) {
      log.info("range group reopened rangeId={} recovered={}", rangeId, recover);
    }
    return added;
  }
}
