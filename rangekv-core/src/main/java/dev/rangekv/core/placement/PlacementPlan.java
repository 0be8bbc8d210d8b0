package dev.rangekv.core.placement;

import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.LeaderTransfer;
import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.split.SplitDecision;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the placement policy wants done this tick, and where each ruled range stands.
 *
 * @param splits splits at rule boundaries (cause {@code PLACEMENT}), at most one per range
 * @param moves replica moves toward conformance, within the move budget
 * @param leaderTransfers leadership transfers to the preferred zone
 * @param reports one per range under a rule or cut by a rule boundary, in key order
 */
public record PlacementPlan(List<SplitDecision.Split> splits, List<Move> moves, List<LeaderTransfer> leaderTransfers,
    List<Report> reports) {
  /** Nothing to do: no rules. */
  public static final PlacementPlan EMPTY = new PlacementPlan(List.of(), List.of(), List.of(), List.of());

  public PlacementPlan {
    splits = List.copyOf(splits);
    moves = List.copyOf(moves);
    leaderTransfers = List.copyOf(leaderTransfers);
    reports = List.copyOf(reports);
  }

  /** The report on {@code rangeId}, if it is under a rule. */
  public Optional<Report> report(long rangeId) {
    return reports.stream().filter(r -> r.rangeId() == rangeId).findFirst();
  }

  /**
   * Where one range stands against its rule.
   *
   * @param rangeId the range
   * @param rule the governing rule, rendered (span and terms), and how it was chosen
   * @param violations empty when it conforms
   * @param state {@code conforming}, {@code splitting}, {@code fixing} (an action planned this tick),
   *     {@code waiting} (a repair or move runs first, or the budget is used) or {@code blocked} (no
   *     legal action exists: the reason says what is missing)
   * @param why the reason and the numbers behind it
   */
  public record Report(long rangeId, String rule, List<Violation> violations, String state, Explanation why) {
    public Report {
      Objects.requireNonNull(rule, "rule");
      violations = List.copyOf(violations);
      Objects.requireNonNull(state, "state");
      Objects.requireNonNull(why, "why");
    }

    public boolean conforms() {
      return violations.isEmpty();
    }
  }
}
