package dev.rangekv.server.ratis;

import dev.rangekv.meta.ratis.MetaGroups;
import dev.rangekv.meta.ratis.MetaStateMachine;
import dev.rangekv.meta.ratis.RaftMetaGroup;
import dev.rangekv.meta.state.MetaGroup;
import dev.rangekv.server.consensus.MetaConsensus;
import dev.rangekv.server.consensus.Member;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.exceptions.AlreadyExistsException;
import org.apache.ratis.server.RaftServer;

/**
 * The meta range's group on the node's Ratis server: created with its peers written to the meta peers
 * file first ({@link MetaPeersFile}: Ratis reopens it with them after a restart), removed with its
 * directory. Thread-safe.
 */
final class RatisMetaConsensus implements MetaConsensus {
  private final RaftServer server;
  private final Path dataDir;
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();

  RatisMetaConsensus(RaftServer server, Path dataDir) {
    this.server = server;
    this.dataDir = dataDir;
  }

  /**
   * The replica the engine opened for {@code stateMachine}, as the node sees it. Ratis opens groups while
   * its server is still being built, so the group is made on first use (the node hosts it after start).
   */
  static MetaConsensus.Opened opened(Supplier<RaftServer> server, MetaStateMachine stateMachine) {
    return new MetaConsensus.Opened() {
      private RaftMetaGroup group;

      @Override
      public synchronized MetaGroup group() {
        if (group == null) {
          group = new RaftMetaGroup(server.get(), stateMachine);
        }
        return group;
      }

      @Override
      public void onApplied(Runnable listener) {
        stateMachine.onApplied(listener);
      }
    };
  }

  @Override
  public boolean create(List<Member> voters) throws IOException {
    List<RaftPeer> peers = voters.stream().map(v -> MetaGroups.peer(v.nodeId(), v.raftAddress())).toList();
    MetaPeersFile.write(dataDir, peers);
    try {
      RaftClientReply reply = server.groupManagement(GroupManagementRequest.newAdd(clientId, server.getId(),
          callIds.incrementAndGet(), MetaGroups.group(peers)));
      if (reply.isSuccess()) {
        return true;
      }
      if ((Throwable) reply.getException() instanceof AlreadyExistsException) {
        return false;
      }
      throw new IOException("creating the meta group failed: " + reply.getException());
    } catch (AlreadyExistsException e) {
      return false;
    }
  }

  @Override
  public void destroy() throws IOException {
    try {
      RaftClientReply reply = server.groupManagement(GroupManagementRequest.newRemove(clientId, server.getId(),
          callIds.incrementAndGet(), MetaGroups.GROUP_ID, true, false));
      if (!reply.isSuccess()) {
        throw new IOException("removing the meta group failed: " + reply.getException());
      }
    } finally {
      MetaPeersFile.delete(dataDir);
    }
  }

  @Override
  public boolean closedByEngine() {
    try {
      return server.getDivision(MetaGroups.GROUP_ID).getInfo().getLifeCycleState().isClosingOrClosed();
    } catch (IOException e) {
      return false; // no meta replica here
    }
  }
}
