package dev.rangekv.client.it;

import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.ratis.RangeGroups;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;

/**
 * Each running node's own view of a range's Raft group (read from the Ratis divisions in this JVM),
 * for failure messages and for checks that the groups agree with the descriptors the controller sees.
 */
final class RaftViews {
  private RaftViews() {}

  /**
   * One line per running node: its role, leader, term, committed and applied index, configuration
   * (current voters, listeners, the previous voters while a change is in flight), or why it has none.
   */
  static String describe(LocalCluster cluster, long rangeId) {
    StringBuilder sb = new StringBuilder("raft group of r").append(rangeId).append(" on each running node:");
    for (int i = 0; i < cluster.size(); i++) {
      if (!cluster.isRunning(i)) {
        continue;
      }
      sb.append("\n  n").append(i + 1).append(": ");
      try {
        RaftServer.Division d = cluster.node(i).engine().server().getDivision(RangeGroups.groupId(rangeId));
        var info = d.getInfo();
        RaftConfiguration conf = d.getRaftConf();
        sb.append(info.getCurrentRole()).append(" leader=").append(info.getLeaderId())
            .append(" term=").append(info.getCurrentTerm()).append(" alive=").append(info.isAlive())
            .append(" leaderReady=").append(info.isLeaderReady())
            .append(" commit=").append(d.getRaftLog().getLastCommittedIndex())
            .append(" applied=").append(info.getLastAppliedIndex())
            .append(" voters=").append(ids(conf.getCurrentPeers()))
            .append(" listeners=").append(ids(conf.getCurrentPeers(RaftPeerRole.LISTENER)))
            .append(" previousVoters=").append(ids(conf.getPreviousPeers()))
            .append(" confIndex=").append(conf.getLogEntryIndex())
            .append(" lastEntry=").append(d.getRaftLog().getLastEntryTermIndex())
            .append(" roleInfo={").append(info.getRoleInfoProto().toString().replace('\n', ' ')).append('}');
      } catch (IOException | RuntimeException e) {
        sb.append("no division: ").append(e);
      }
    }
    return sb.toString();
  }

  /**
   * The ranges whose Raft configuration on their leader differs from the leader's descriptor, one line
   * each: a replica change the descriptor does not show yet (a configuration change committed or in
   * flight, its {@code ChangeReplicas} command not yet applied), e.g. of a move still running on a node
   * for a controller that has lost the meta leadership since. Empty when every leader agrees.
   */
  static List<String> confMismatches(LocalCluster cluster) {
    List<String> out = new java.util.ArrayList<>();
    for (int i = 0; i < cluster.size(); i++) {
      if (!cluster.isRunning(i)) {
        continue;
      }
      RaftServer server = cluster.node(i).engine().server();
      for (var replica : cluster.node(i).directory().replicas()) {
        var descriptor = replica.descriptor().orElse(null);
        if (descriptor == null) {
          continue;
        }
        try {
          RaftServer.Division d = server.getDivision(RangeGroups.groupId(descriptor.rangeId()));
          if (!d.getInfo().isLeader()) {
            continue;
          }
          RaftConfiguration conf = d.getRaftConf();
          Set<String> voters = ids(conf.getCurrentPeers());
          if (!voters.equals(new TreeSet<>(descriptor.replicas())) || !conf.getPreviousPeers().isEmpty()
              || !conf.getCurrentPeers(RaftPeerRole.LISTENER).isEmpty()) {
            out.add("r" + descriptor.rangeId() + " on its leader n" + (i + 1) + ": descriptor " + descriptor.replicas()
                + "@g" + descriptor.generation() + ", voters " + voters + ", previous voters "
                + ids(conf.getPreviousPeers()) + ", listeners " + ids(conf.getCurrentPeers(RaftPeerRole.LISTENER)));
          }
        } catch (IOException | RuntimeException e) {
          // no division (a replica being dropped or woken): its leader elsewhere speaks for the range
        }
      }
    }
    return out;
  }

  private static Set<String> ids(java.util.Collection<RaftPeer> peers) {
    Set<String> out = new TreeSet<>();
    peers.forEach(p -> out.add(p.getId().toString()));
    return out;
  }
}
