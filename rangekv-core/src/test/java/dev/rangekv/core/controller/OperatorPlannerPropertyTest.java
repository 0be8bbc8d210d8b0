package dev.rangekv.core.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.ClusterFixtures;
import dev.rangekv.core.cluster.ClusterSnapshot;
import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.LeaderTransfer;
import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.cluster.SplitCause;
import dev.rangekv.core.merge.MergeDecision;
import dev.rangekv.core.operator.OpStep;
import dev.rangekv.core.operator.Operator;
import dev.rangekv.core.operator.OperatorKind;
import dev.rangekv.core.operator.StepTimeouts;
import dev.rangekv.core.placement.PlacementPlan;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rebalance.RebalancePlan;
import dev.rangekv.core.rebalance.RepairPlan;
import dev.rangekv.core.split.SplitDecision;
import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The operator planner against a brute-force model: random decisions on random ranges, some locked or
 * unmeasured; and move operators driven step by step against a model range whose reports lag.
 */
class OperatorPlannerPropertyTest {
  static final Explanation WHY = Explanation.of("p").build();
  static final List<String> NODES = List.of("n1", "n2", "n3", "n4", "n5", "n6");

  /** One decision in the model: the kind it becomes, the ranges it needs, whether it needs stats. */
  record Wanted(OperatorKind kind, List<Long> ranges, boolean needsMeasured) {}

  @Test
  void operatorsAreTheDecisionsInPriorityOrder_firstComeFirstServedPerRange() {
    Property.named("operator planner").cases(400).sizes(1, 12).check(g -> {
      int n = g.size();
      ClusterSnapshot s = ClusterSnapshot.of(ClusterFixtures.nodes(OperatorPlannerTest.NOW, NODES.toArray(String[]::new)),
          ranges(n));
      List<Move> repairs = new ArrayList<>();
      List<RepairPlan.Removal> removals = new ArrayList<>();
      List<SplitDecision> splits = new ArrayList<>();
      List<MergeDecision> merges = new ArrayList<>();
      List<Move> moves = new ArrayList<>();
      List<LeaderTransfer> transfers = new ArrayList<>();
      for (int d = 0; d < g.between(0, 2 * n); d++) {
        long id = g.between(1, n);
        switch (g.nextInt(6)) {
          case 0 -> repairs.add(Move.of(id, "n1", "n4", WHY));
          case 1 -> removals.add(new RepairPlan.Removal(id, "n3", WHY));
          case 2 -> splits.add(new SplitDecision.Split(id, 1, ClusterFixtures.k(id * 100 - 50),
              g.chance(0.3) ? SplitCause.PLACEMENT : SplitCause.LOAD, WHY));
          case 3 -> {
            if (id < n) {
              merges.add(new MergeDecision.Merge(id, 1, id + 1, 1, WHY));
            }
          }
          case 4 -> moves.add(Move.of(id, "n2", "n5", WHY));
          default -> transfers.add(new LeaderTransfer(id, "n1", "n2", WHY));
        }
      }
      Set<Long> locked = randomSubset(g, n);
      Set<Long> unmeasured = randomSubset(g, n);
      TickPlan plan = new TickPlan(new RepairPlan(repairs, removals, List.of(), WHY), splits, merges,
          new RebalancePlan(moves, transfers, WHY), List.of(), ControllerState.INITIAL, PlacementPlan.EMPTY);
      List<Operator> got = OperatorPlanner.plan(plan, s, new OperatorInputs(locked, unmeasured,
          StepTimeouts.DEFAULTS), OperatorPlannerTest.CONFIG, OperatorPlannerTest.NOW);

      // Brute force: every decision in priority order; take it when its ranges are all free.
      List<Wanted> wanted = new ArrayList<>();
      repairs.forEach(m -> wanted.add(new Wanted(OperatorKind.REPAIR, List.of(m.rangeId()), false)));
      removals.forEach(r -> wanted.add(new Wanted(OperatorKind.REPAIR, List.of(r.rangeId()), false)));
      for (SplitDecision d : splits) {
        boolean rule = ((SplitDecision.Split) d).cause() == SplitCause.PLACEMENT;
        wanted.add(new Wanted(OperatorKind.SPLIT, List.of(d.rangeId()), !rule));
      }
      merges.forEach(m -> wanted.add(new Wanted(OperatorKind.MERGE, List.of(m.leftRangeId(), m.rightRangeId()), true)));
      moves.forEach(m -> wanted.add(new Wanted(OperatorKind.REBALANCE, List.of(m.rangeId()), true)));
      transfers.forEach(t -> wanted.add(new Wanted(OperatorKind.REBALANCE_LEADER, List.of(t.rangeId()), true)));
      Set<Long> held = new HashSet<>(locked);
      List<Wanted> expected = new ArrayList<>();
      for (Wanted w : wanted) {
        boolean free = w.ranges().stream().noneMatch(held::contains);
        boolean measured = !w.needsMeasured() || w.ranges().stream().noneMatch(unmeasured::contains);
        if (free && measured) {
          expected.add(w);
          held.addAll(w.ranges());
        }
      }
      assertThat(got).extracting(o -> new Wanted(o.kind(), o.rangeIds(), false))
          .containsExactlyElementsOf(expected.stream().map(w -> new Wanted(w.kind(), w.ranges(), false)).toList());
    });
  }

  /**
   * A move operator run against a model range: each round the reports show the model, the due step
   * (or, per {@link Operator#resume}, the transfer before it) is applied with some luck, and elections
   * move the leadership to a random live replica now and then (also back to the leaving one; the
   * model's node then refuses to remove or replace itself, as a real one does). The operator ends with
   * the model's replica set and the leadership off the leaving replica, and never gives a range of 3
   * or more replicas a fourth voter.
   */
  @Test
  void moveOperators_endWithTheModelsReplicaSet_evenWhenLeadershipComesBack_andNeverAddAFourthVoter() {
    Property.named("move progression").cases(500).sizes(0, 4).check(g -> {
      List<String> replicas = new ArrayList<>(NODES.subList(0, g.between(1, 3)));
      Set<String> live = new HashSet<>(NODES);
      String from = g.pick(replicas);
      if (replicas.size() > 1 && g.chance(0.3)) {
        live.remove(from);
      }
      String to = g.pick(NODES.subList(3, 6));
      String leader = g.pick(replicas.stream().filter(live::contains).toList());
      RangeDescriptor d = ClusterFixtures.range(1, 0, 100, replicas.toArray(String[]::new));
      Operator op = new Operator(1, d.generation(), OperatorKind.REBALANCE,
          OperatorPlanner.moveSteps(Move.of(1, from, to, WHY), d, live), WHY, 1);
      Set<String> expectedReplicas = new HashSet<>(replicas);
      expectedReplicas.remove(from);
      expectedReplicas.add(to);
      int maxVoters = replicas.size() >= 3 ? replicas.size() : replicas.size() + 1;

      int step = 0;
      int rounds = 0;
      while (true) {
        int next = op.progress(step, d, leader);
        assertThat(next).isGreaterThanOrEqualTo(step);
        step = op.resume(next, d, leader);
        assertThat(step).isBetween(next - 1, next);
        if (step == op.steps().size()) {
          break;
        }
        assertThat(rounds++).as("finishes").isLessThan(400);
        if (g.chance(0.1)) { // an election among the live replicas
          List<String> voters = d.replicas().stream().filter(live::contains).toList();
          leader = g.pick(voters);
        }
        if (!g.chance(0.6)) {
          continue; // the call was lost or is still running
        }
        OpStep due = op.steps().get(step);
        List<String> rs = new ArrayList<>(d.replicas());
        if (due instanceof OpStep.AddReplica a) {
          rs.add(a.nodeId());
          d = d.withReplicas(rs, d.generation() + 1);
        } else if (due instanceof OpStep.TransferLeaderAway t) {
          String heir = t.heir();
          leader = rs.contains(heir) && live.contains(heir) ? heir
              : rs.stream().filter(x -> !x.equals(from) && live.contains(x)).findFirst().orElse(leader);
        } else if (due instanceof OpStep.RemoveReplica r) {
          if (leader.equals(r.nodeId())) {
            continue; // the node refuses to remove itself; resume() sends the transfer again
          }
          rs.remove(r.nodeId());
          d = d.withReplicas(rs, d.generation() + 1);
        } else if (due instanceof OpStep.ReplaceReplica r) {
          if (leader.equals(r.fromNode())) {
            continue; // the node refuses to replace itself; resume() sends the transfer again
          }
          rs.set(rs.indexOf(r.fromNode()), r.toNode());
          d = d.withReplicas(rs, d.generation() + 1);
        }
        assertThat(d.replicas().size()).as("voters of " + d.replicas()).isLessThanOrEqualTo(maxVoters);
      }
      assertThat(new HashSet<>(d.replicas())).isEqualTo(expectedReplicas);
      if (live.contains(from)) {
        assertThat(leader).isNotEqualTo(from);
      }
    });
  }

  static List<RangeStats> ranges(int n) {
    List<RangeStats> out = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      out.add(RangeStats.of(ClusterFixtures.range(i, (i - 1) * 100L, i == n ? -1 : i * 100L, "n1", "n2", "n3"), 1, 0,
          "n1"));
    }
    return out;
  }

  static Set<Long> randomSubset(Gen g, int n) {
    Set<Long> out = new HashSet<>();
    for (long i = 1; i <= n; i++) {
      if (g.chance(0.2)) {
        out.add(i);
      }
    }
    return out;
  }

}
