package dev.rangekv.core.cluster;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The cluster's placement rules at one version, sorted by span. Immutable; changes return a new set
 * with the version bumped and the changed rule stamped with it.
 *
 * <p>Rules may overlap. The rule of a range is the <em>most specific</em> rule covering its whole span:
 * the one with the greatest start, then the smallest end (a nested span always wins over the span
 * around it). A range that a rule boundary cuts through is governed by the rule covering it whole (or
 * none) until the controller splits it at that boundary, as CockroachDB splits at zone-config
 * boundaries.
 *
 * @param version grows by one with each set or remove; 0 for the empty initial set
 * @param rules at most one per span, sorted by start then end
 */
public record PlacementRules(long version, List<PlacementRule> rules) {
  /** No rules: every range follows the default replication and zone spreading. */
  public static final PlacementRules EMPTY = new PlacementRules(0, List.of());

  private static final Comparator<PlacementRule> ORDER =
      Comparator.comparing(PlacementRule::start).thenComparing(PlacementRule::end);

  public PlacementRules {
    if (version < 0) {
      throw new IllegalArgumentException("negative version " + version);
    }
    List<PlacementRule> sorted = new ArrayList<>(rules);
    sorted.sort(ORDER);
    for (int i = 1; i < sorted.size(); i++) {
      if (sorted.get(i).sameSpan(sorted.get(i - 1))) {
        throw new IllegalArgumentException("two rules for the span " + sorted.get(i));
      }
    }
    rules = List.copyOf(sorted);
  }

  /** Adds {@code rule}, replacing the rule of the same span; the new version stamps it. */
  public PlacementRules with(PlacementRule rule) {
    long next = version + 1;
    List<PlacementRule> out = new ArrayList<>();
    for (PlacementRule r : rules) {
      if (!r.sameSpan(rule)) {
        out.add(r);
      }
    }
    out.add(rule.withVersion(next));
    return new PlacementRules(next, out);
  }

  /** Removes the rule of exactly {@code [start, end)}; empty when there is none. */
  public Optional<PlacementRules> without(Key start, RangeEnd end) {
    List<PlacementRule> out = new ArrayList<>();
    for (PlacementRule r : rules) {
      if (!(r.start().equals(start) && r.end().equals(end))) {
        out.add(r);
      }
    }
    return out.size() == rules.size() ? Optional.empty() : Optional.of(new PlacementRules(version + 1, out));
  }

  public Optional<PlacementRule> find(Key start, RangeEnd end) {
    return rules.stream().filter(r -> r.start().equals(start) && r.end().equals(end)).findFirst();
  }

  public boolean isEmpty() {
    return rules.isEmpty();
  }

  /** The most specific rule covering all of {@code d}, if any. */
  public Optional<PlacementRule> ruleFor(RangeDescriptor d) {
    PlacementRule best = null;
    for (PlacementRule r : rules) {
      if (r.start().compareTo(d.start()) > 0) {
        break; // sorted by start: no later rule covers d
      }
      if (r.covers(d) && (best == null || r.start().compareTo(best.start()) > 0
          || (r.start().equals(best.start()) && r.end().compareTo(best.end()) < 0))) {
        best = r;
      }
    }
    return Optional.ofNullable(best);
  }

  /** How many rules cover all of {@code d} (the most specific one wins; {@code why} says among how many). */
  public int coveringCount(RangeDescriptor d) {
    return (int) rules.stream().filter(r -> r.covers(d)).count();
  }

  /** The smallest rule boundary strictly inside {@code d}: where the controller splits it. */
  public Optional<Key> boundaryInside(RangeDescriptor d) {
    Key best = null;
    for (PlacementRule r : rules) {
      for (Key k : bounds(r)) {
        if (k.compareTo(d.start()) > 0 && d.end().isAbove(k) && (best == null || k.compareTo(best) < 0)) {
          best = k;
        }
      }
    }
    return Optional.ofNullable(best);
  }

  /** True when a rule starts or ends exactly at {@code key}: ranges meeting there must not merge. */
  public boolean isBoundary(Key key) {
    for (PlacementRule r : rules) {
      if (bounds(r).contains(key)) {
        return true;
      }
    }
    return false;
  }

  private static List<Key> bounds(PlacementRule r) {
    return r.end().isInfinite() ? List.of(r.start()) : List.of(r.start(), r.end().key());
  }
}
