package dev.rangekv.proto.convert;

import dev.rangekv.core.cluster.LabelConstraint;
import dev.rangekv.core.cluster.PlacementRule;
import dev.rangekv.core.cluster.PlacementRules;
import dev.rangekv.proto.PlacementRuleProto;
import java.util.ArrayList;
import java.util.List;

/** Placement rules between core values and their protobuf form. Stateless. */
public final class PlacementProtos {
  private PlacementProtos() {}

  /**
   * The core rule of {@code p}.
   *
   * @throws dev.rangekv.core.cluster.InvalidRuleException when it is malformed
   */
  public static PlacementRule rule(PlacementRuleProto p) {
    List<LabelConstraint> cs = new ArrayList<>();
    p.getConstraintsList().forEach(c -> cs.add(LabelConstraint.parse(c)));
    return new PlacementRule(ProtoValues.key(p.getStart()), ProtoValues.end(p.getEnd(), p.getEndInfinite()),
        p.getReplicas(), cs, p.getZonesList(), p.getLeaderZonesList(), p.getVersion());
  }

  public static PlacementRuleProto proto(PlacementRule r) {
    PlacementRuleProto.Builder b = PlacementRuleProto.newBuilder().setStart(ProtoValues.bytes(r.start()))
        .setEnd(ProtoValues.endBytes(r.end())).setEndInfinite(r.end().isInfinite()).setReplicas(r.replicas())
        .addAllZones(r.zones()).addAllLeaderZones(r.leaderZones()).setVersion(r.version());
    r.constraints().forEach(c -> b.addConstraints(c.toString()));
    return b.build();
  }

  /** The rule set of a stored version and rules. */
  public static PlacementRules rules(long version, List<PlacementRuleProto> rules) {
    return new PlacementRules(version, rules.stream().map(PlacementProtos::rule).toList());
  }
}
