package dev.rangekv.server.multiraft;

import dev.rangekv.server.consensus.GroupStatus;
import dev.rangekv.server.consensus.Leadership;
import dev.rangekv.server.consensus.Member;
import io.microraft.RaftEndpoint;
import io.microraft.RaftNodeStatus;
import io.microraft.report.RaftGroupMembers;
import io.microraft.report.RaftNodeReport;
import io.microraft.report.RaftTerm;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The seam's {@link GroupStatus} of one group here, built from its MicroRaft node and the last report it
 * published (a report is asked for at each call, so the next one is fresher). Followers' positions and
 * silences only on the leader; the previous members only while the leader changes members one at a time.
 */
final class GroupStatusView {
  private GroupStatusView() {}

  /**
   * @param leadership the group's leadership as this node sees it
   * @param selfId this node's id
   * @param members the seam's members of MicroRaft endpoints (with their Raft addresses)
   * @param liveNode whether a node is live ({@link NodeLiveness}): a quiesced group's followers on live
   *     nodes are not silent, they hold the whole log and wait without heartbeats ({@link Quiescence})
   */
  static GroupStatus of(Group g, Leadership leadership, String selfId,
      Function<Collection<RaftEndpoint>, List<Member>> members, Predicate<String> liveNode) {
    if (!g.quiet) {
      // fresher next time; a quiesced group's last report (taken as it quiesced) stays true until it wakes
      g.node.getReport().thenAccept(r -> g.report = r.getResult());
    }
    RaftNodeReport r = g.report;
    RaftTerm term = g.node.getTerm();
    long applied = g.machine.replica().appliedIndex().orElse(0);
    long commit = r == null ? applied : Math.max(applied, r.getLog().getCommitIndex());
    List<Long> matches = new ArrayList<>();
    Map<String, Long> silence = new HashMap<>();
    Map<String, Long> commits = new HashMap<>();
    if (leadership.leader() && r != null) {
      long now = System.currentTimeMillis();
      r.getLog().getFollowerMatchIndices().forEach((e, m) -> {
        matches.add(m);
        commits.put(NodeEndpoint.idOf(e), Math.min(m, commit));
      });
      boolean quiet = g.quiet;
      r.getHeartbeatTimestamps().forEach((e, ts) -> {
        String id = NodeEndpoint.idOf(e);
        silence.put(id, quiet && liveNode.test(id) ? 0 : Math.max(0, now - ts));
      });
      commits.put(selfId, commit);
    }
    RaftGroupMembers effective = g.node.getEffectiveMembers();
    List<Member> voters = members.apply(effective.getVotingMembers());
    boolean learners = effective.getMembers().size() > effective.getVotingMembers().size();
    return new GroupStatus(leadership, !leadership.leader() && !leadership.leaderId().isEmpty(), term.getTerm(),
        applied, commit, new GroupStatus.LogPosition(g.log.terms.lastTerm(), g.log.terms.lastIndex()), voters,
        leadership.leader() ? g.changingFrom : List.of(), learners, matches, silence, commits,
        RaftNodeStatus.isTerminal(g.node.getStatus()));
  }
}
