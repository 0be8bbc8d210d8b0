package dev.rangekv.core.cluster;

import dev.rangekv.core.placement.Violation;

import dev.rangekv.core.placement.Conformance;

import dev.rangekv.core.placement.RuleCheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PlacementRulesTest {
  static final NodeStats EU1 = new NodeStats("a", "eu-1", 0, 0, Map.of("disk", "ssd"));
  static final NodeStats EU2 = new NodeStats("b", "eu-2", 0, 0, Map.of("disk", "hdd"));
  static final NodeStats US1 = new NodeStats("c", "us-1", 0, 0, Map.of());

  static PlacementRule tenant(String prefix, String... zones) {
    return PlacementRule.forPrefix(Key.utf8(prefix), 3, List.of(), List.of(zones), List.of());
  }

  static RangeDescriptor range(String lo, String hi) {
    return new RangeDescriptor(1, Key.utf8(lo), hi == null ? RangeEnd.INFINITY : RangeEnd.at(Key.utf8(hi)),
        List.of("a"), 1);
  }

  @Test
  void constraints_parsePlusAndMinus_andMatchLabelsWithTheZone() {
    LabelConstraint plus = LabelConstraint.parse("+zone=eu-1");
    LabelConstraint minus = LabelConstraint.parse("-disk=hdd");
    assertThat(plus.matches(EU1.allLabels())).isTrue();
    assertThat(plus.matches(EU2.allLabels())).isFalse();
    assertThat(minus.matches(EU2.allLabels())).isFalse();
    assertThat(minus.matches(US1.allLabels())).isTrue();
    assertThatThrownBy(() -> LabelConstraint.parse("zone=eu-1")).isInstanceOf(InvalidRuleException.class);
    assertThatThrownBy(() -> LabelConstraint.parse("+zone=")).isInstanceOf(InvalidRuleException.class);
  }

  @Test
  void rule_refusesBadReplicaCounts_andLeaderZonesOutsideItsZones() {
    assertThatThrownBy(() -> PlacementRule.forPrefix(Key.utf8("t/"), 2, List.of(), List.of(), List.of()))
        .hasMessageContaining("1, 3 or 5");
    assertThatThrownBy(() -> PlacementRule.forPrefix(Key.utf8("t/"), 3, List.of(), List.of("eu-1"), List.of("us-1")))
        .hasMessageContaining("leader zones");
    assertThatThrownBy(() -> PlacementRule.forPrefix(Key.utf8("t/"), 3,
        List.of(LabelConstraint.parse("+disk=ssd"), LabelConstraint.parse("-disk=ssd")), List.of(), List.of()))
        .hasMessageContaining("contradicting");
  }

  @Test
  void mostSpecificSpan_wins_andBoundariesInsideARangeAreFound() {
    PlacementRules rules = PlacementRules.EMPTY.with(tenant("tenant/", "eu-1", "eu-2"))
        .with(tenant("tenant/42/", "eu-1"));
    assertThat(rules.version()).isEqualTo(2);
    assertThat(rules.ruleFor(range("tenant/42/a", "tenant/42/b")).orElseThrow().zones()).containsExactly("eu-1");
    assertThat(rules.ruleFor(range("tenant/41", "tenant/42/")).orElseThrow().zones()).containsExactly("eu-1", "eu-2");
    assertThat(rules.ruleFor(range("a", "b"))).isEmpty();
    assertThat(rules.coveringCount(range("tenant/42/a", "tenant/42/b"))).isEqualTo(2);
    assertThat(rules.boundaryInside(range("a", null))).contains(Key.utf8("tenant/"));
    assertThat(rules.boundaryInside(range("tenant/1", null))).contains(Key.utf8("tenant/42/"));
    assertThat(rules.boundaryInside(range("tenant/42/", "tenant/5"))).contains(Key.utf8("tenant/420"));
    assertThat(rules.boundaryInside(range("tenant/42/", "tenant/420"))).isEmpty();
    assertThat(rules.isBoundary(Key.utf8("tenant/42/"))).isTrue();
  }

  @Test
  void setReplacesTheRuleOfTheSameSpan_andRemoveNeedsAnExactSpan() {
    PlacementRules rules = PlacementRules.EMPTY.with(tenant("t/", "eu-1")).with(tenant("t/", "eu-2"));
    assertThat(rules.rules()).hasSize(1);
    assertThat(rules.rules().get(0).zones()).containsExactly("eu-2");
    assertThat(rules.rules().get(0).version()).isEqualTo(2);
    assertThat(rules.without(Key.utf8("t"), Key.utf8("t/").prefixEnd())).isEmpty();
    assertThat(rules.without(Key.utf8("t/"), Key.utf8("t/").prefixEnd()).orElseThrow().rules()).isEmpty();
  }

  @Test
  void check_refusesARuleNoKnownNodeMeets_warnsWhenOnlyDeadOrTooFewNodesMeetIt() {
    List<NodeStats> known = List.of(EU1, EU2, US1);
    assertThat(RuleCheck.of(tenant("t/", "ap-1"), known, Set.of("a", "b", "c")).refused()).isTrue();
    assertThat(RuleCheck.of(tenant("t/", "eu-1"), known, Set.of("a", "b", "c")).verdict())
        .isEqualTo(RuleCheck.Verdict.WARNING);
    assertThat(RuleCheck.of(PlacementRule.forPrefix(Key.utf8("t/"), 1, List.of(), List.of("eu-1"), List.of()),
        known, Set.of("b", "c")).verdict()).isEqualTo(RuleCheck.Verdict.WARNING);
    assertThat(RuleCheck.of(PlacementRule.forPrefix(Key.utf8("t/"), 3, List.of(LabelConstraint.parse("-zone=ap-1")),
        List.of(), List.of("eu-1")), known, Set.of("a", "b", "c")).verdict()).isEqualTo(RuleCheck.Verdict.ACCEPTED);
  }

  @Test
  void conformance_namesForbiddenReplicas_crowdedZones_andLeader() {
    PlacementRule rule = PlacementRule.forPrefix(Key.EMPTY.successor(), 3, List.of(LabelConstraint.parse("-zone=us-1")),
        List.of(), List.of("eu-2"));
    NodeStats eu1b = new NodeStats("d", "eu-1", 0, 0);
    Map<String, NodeStats> nodes = Map.of("a", EU1, "b", EU2, "c", US1, "d", eu1b);
    RangeDescriptor d = new RangeDescriptor(1, Key.EMPTY.successor(), RangeEnd.at(Key.utf8("z")),
        List.of("a", "d", "c"), 1);
    List<Violation> v = Conformance.check(d, "a", rule, nodes, Set.of("a", "b", "c", "d"));
    assertThat(v).extracting(Violation::kind).containsExactly("forbidden-node", "leader");
    assertThat(v.get(0).detail()).contains("replica on c").contains("fails -zone=us-1");
    List<Violation> crowded = Conformance.check(d.withReplicas(List.of("a", "d", "b"), 2), "b",
        rule.withVersion(0), nodes, Set.of("a", "b", "c", "d"));
    assertThat(crowded).isEmpty(); // two eligible zones, both covered
    List<Violation> oneZone = Conformance.check(d.withReplicas(List.of("a", "d"), 2), "a",
        PlacementRule.forPrefix(Key.EMPTY.successor(), 3, List.of(), List.of(), List.of()), nodes,
        Set.of("a", "b", "d"));
    assertThat(oneZone).extracting(Violation::kind).containsExactly("replica-count", "spread");
  }
}
