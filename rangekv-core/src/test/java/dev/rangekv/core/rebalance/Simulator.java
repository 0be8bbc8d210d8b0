package dev.rangekv.core.rebalance;

import dev.rangekv.core.cluster.ClusterSnapshot;
import dev.rangekv.core.cluster.LeaderTransfer;
import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.cluster.RangeStats;
import java.util.ArrayList;
import java.util.List;

/** Executes moves and transfers instantly on a snapshot, as a perfect controller would. */
final class Simulator {
  private Simulator() {}

  static ClusterSnapshot apply(ClusterSnapshot s, List<Move> moves, List<LeaderTransfer> transfers) {
    List<RangeStats> out = new ArrayList<>();
    for (RangeStats r : s.ranges()) {
      RangeStats cur = r;
      for (Move m : moves) {
        if (m.rangeId() == cur.rangeId()) {
          List<String> replicas = new ArrayList<>(cur.range().replicas());
          if (replicas.contains(m.toNode())) {
            throw new AssertionError("move to a node already holding the range: " + m);
          }
          String leader = cur.leaderNodeId();
          if (m.fromNode().isPresent()) {
            int i = replicas.indexOf(m.fromNode().get());
            if (i < 0) {
              throw new AssertionError("move from a node not holding the range: " + m);
            }
            replicas.set(i, m.toNode());
            if (leader.equals(m.fromNode().get())) {
              leader = m.toNode();
            }
          } else {
            replicas.add(m.toNode());
          }
          cur = cur.withRange(cur.range().withReplicas(replicas, cur.range().generation() + 1)).withLeader(leader);
        }
      }
      for (LeaderTransfer t : transfers) {
        if (t.rangeId() == cur.rangeId()) {
          if (!cur.leaderNodeId().equals(t.fromNode()) || !cur.range().replicas().contains(t.toNode())) {
            throw new AssertionError("bad leader transfer " + t + " for " + cur);
          }
          cur = cur.withLeader(t.toNode());
        }
      }
      out.add(cur);
    }
    return s.withRanges(out);
  }
}
