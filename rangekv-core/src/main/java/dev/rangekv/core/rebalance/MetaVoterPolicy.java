package dev.rangekv.core.rebalance;

import dev.rangekv.core.cluster.Explanation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Where the meta range's voters should be: on {@code target} (normally 3) live nodes, spread over
 * zones. One node is added per configuration change (a change that adds a majority of the current
 * voters at once is not safe: old and new majorities need not overlap), and growth only starts when it can end at an odd count (two voters tolerate no more
 * failures than one, and fail twice as often): a lone bootstrap voter waits for two live candidates,
 * then passes through two voters for one controller tick. At the target, one voter on a dead node is
 * replaced by a live node per change;
 * that needs a live majority of the current voters (without one no configuration change can commit).
 * Added nodes are preferably in zones the voters do not cover yet, then by smallest id, so the plan is
 * deterministic.
 */
public final class MetaVoterPolicy {
  private MetaVoterPolicy() {}

  /** The next voter set and why, or empty when the voters are where they should be. */
  public record Change(List<String> voters, String added, Optional<String> removed, Explanation why) {
    public Change {
      voters = List.copyOf(voters);
    }
  }

  /**
   * @param voters the meta group's current voters (node ids)
   * @param live the live nodes (registered and heartbeating), with their zones ("" when none)
   * @param target how many voters the meta range should have (odd; at most the live nodes are used)
   */
  public static Optional<Change> next(List<String> voters, Map<String, String> live, int target) {
    return next(voters, Optional.empty(), live, target);
  }

  /**
   * Like {@link #next(List, Map, int)}, and once the voters are at their target and all live: when two
   * share a zone while a live node offers a zone they do not cover, the one that does not lead is
   * replaced by it (a voter replaced while its zone was down would otherwise keep the meta range from
   * surviving the loss of the crowded zone). Without a known leader no live voter is replaced.
   *
   * @param leader the meta range's leader, never removed
   */
  public static Optional<Change> next(List<String> voters, Optional<String> leader, Map<String, String> live,
      int target) {
    if (target < 1 || target % 2 == 0) {
      throw new IllegalArgumentException("target must be odd and >= 1, got " + target);
    }
    List<String> liveVoters = voters.stream().filter(live::containsKey).toList();
    List<String> dead = voters.stream().filter(v -> !live.containsKey(v)).sorted().toList();
    List<String> candidates = live.keySet().stream().filter(n -> !voters.contains(n)).toList();
    if (candidates.isEmpty()) {
      return Optional.empty();
    }
    Set<String> covered = new HashSet<>();
    for (String v : liveVoters) {
      if (!live.get(v).isEmpty()) {
        covered.add(live.get(v));
      }
    }
    int wanted = Math.min(target, voters.size() + candidates.size());
    wanted -= wanted % 2 == 0 ? 1 : 0;
    if (wanted > voters.size()) {
      String added = pick(candidates, live, covered);
      List<String> next = new ArrayList<>(voters);
      next.add(added);
      return Optional.of(new Change(next, added, Optional.empty(), Explanation.of("meta range below its voter target")
          .with("voters", voters.size()).with("liveCandidates", candidates.size()).with("target", target).build()));
    }
    if (!dead.isEmpty() && liveVoters.size() * 2 > voters.size()) {
      String remove = dead.get(0);
      String added = pick(candidates, live, covered);
      List<String> next = new ArrayList<>(voters);
      next.set(next.indexOf(remove), added);
      return Optional.of(new Change(next, added, Optional.of(remove), Explanation.of("meta voter on a dead node")
          .with("voters", voters.size()).with("liveVoters", liveVoters.size()).with("target", target).build()));
    }
    if (dead.isEmpty() && leader.isPresent()) {
      return respread(voters, leader.get(), live, candidates, covered);
    }
    return Optional.empty();
  }

  private static Optional<Change> respread(List<String> voters, String leader, Map<String, String> live,
      List<String> candidates, Set<String> covered) {
    Set<String> liveZones = new HashSet<>(live.values());
    liveZones.remove("");
    if (covered.size() >= Math.min(voters.size(), liveZones.size())) {
      return Optional.empty();
    }
    Optional<String> added = candidates.stream().filter(c -> !live.get(c).isEmpty() && !covered.contains(live.get(c)))
        .sorted().findFirst();
    Optional<String> removed = voters.stream().filter(v -> !v.equals(leader) && !live.get(v).isEmpty()
        && voters.stream().filter(w -> live.get(v).equals(live.get(w))).count() > 1).sorted().findFirst();
    if (added.isEmpty() || removed.isEmpty()) {
      return Optional.empty();
    }
    List<String> next = new ArrayList<>(voters);
    next.set(next.indexOf(removed.get()), added.get());
    return Optional.of(new Change(next, added.get(), removed, Explanation.of(
            "meta voters share a zone while a live node offers one they do not cover")
        .with("voterZones", covered.size()).with("liveZones", liveZones.size()).build()));
  }

  /** The candidate in a zone not covered yet (no zone counts as uncovered), then the smallest id. */
  private static String pick(List<String> candidates, Map<String, String> zones, Set<String> covered) {
    return candidates.stream()
        .min(Comparator.<String, Boolean>comparing(c -> covered.contains(zones.get(c))).thenComparing(Comparator.naturalOrder()))
        .orElseThrow();
  }
}
