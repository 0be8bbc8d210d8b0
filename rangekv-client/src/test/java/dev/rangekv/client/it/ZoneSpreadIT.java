package dev.rangekv.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.client.RangeKvClient;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import dev.rangekv.testcluster.AckedWriters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Without placement rules, on 5 in-JVM nodes in 3 zones (z1: n1, n4, n5; z2: n2; z3: n3): while z2's
 * only node is dead, repair puts its replicas (and its meta voter) in z1 or z3, so ranges span 2
 * zones; once it is back, rebalancing and the meta voter policy spread them over 3 zones again and the
 * controller comes to rest. Then all of z1 dies and every range still serves reads and writes, and no
 * acknowledged write is lost.
 */
class ZoneSpreadIT {
  @TempDir Path dir;

  @Test
  @Timeout(900)
  void rangesRepairedWhileAZoneWasDown_regainItsSpread_andSurviveTheLossOfAnotherZone() throws Exception {
    // Default balancing: a move of a 3-replica range is one joint-consensus replace, whose old and new
    // majorities both survive z1's loss (add-then-remove left 2 of 4 voters and no leader;
    // docs/decisions/0009-joint-consensus-moves.md),
    // and rebalance.min-gain keeps measurement noise from moving a replica inside z1 and back
    // (assertNoMoveUndone checks that).
    try (LocalCluster cluster = LocalCluster.startZoned(ZoneLoss.ZONES, dir, RaftTuning.forTests(),
            ControllerClusters.builder().build());
        MetaProbe meta = new MetaProbe(cluster);
        RangeKvClient client = ControllerClusters.client(cluster)) {
      AckedWriters writers = ClientWriters.start(client, 4, ControllerClusters::uniformKey, 16 << 10, 250);
      writers.join();
      meta.awaitOrDump("a few ranges, each over 3 zones", Duration.ofMinutes(3), () -> {
        List<RangeStatsProto> ranges = meta.ranges();
        return ranges.size() >= 3 && ranges.stream().allMatch(r -> ZoneLoss.zones(r).size() == 3);
      });

      cluster.stop(1); // n2, all of z2
      meta.awaitOrDump("n2's replicas and meta voter re-created in z1 or z3", Duration.ofMinutes(4), () ->
          meta.ranges().stream().allMatch(r -> r.getRange().getReplicasCount() == 3
              && !ControllerClusters.replicaIds(r).contains("n2"))
              && !ZoneLoss.metaVoters(cluster).isEmpty() && !ZoneLoss.metaVoters(cluster).contains("n2"));
      assertThat(meta.ranges()).as("repair had only z1 and z3: no range spans 3 zones")
          .allMatch(r -> ZoneLoss.zones(r).size() == 2);
      assertThat(meta.events("repair")).isNotEmpty();

      long restartedAt = PlacementRulesIT.lastSeq(meta);
      cluster.restart(1);
      meta.awaitOrDump("every range and the meta voters over 3 zones again, no move in flight on 3 polls in a row",
          Duration.ofMinutes(5), new ZoneLoss.Steady(3, () -> ZoneLoss.quiet(cluster)
              && meta.ranges().stream().allMatch(r -> r.getRange().getReplicasCount() == 3
                  && ZoneLoss.zones(r).size() == 3)),
          () -> "Raft configurations unlike their descriptors: " + RaftViews.confMismatches(cluster));
      assertThat(meta.events("move")).as("rebalancing moved replicas back into z2")
          .anyMatch(e -> e.getReason().startsWith("rebalance: replicas share a zone"));
      ZoneLoss.assertNoMoveUndone(meta.events(), restartedAt);
      writers.assertNoAckedWriteLost(client::batchGet);

      List<RangeStatsProto> before = meta.ranges();
      ZoneLoss.killZ1(cluster);
      ZoneLoss.assertServed(cluster, meta, client, before, r -> true);
      ZoneLoss.awaitServed("every acknowledged write reads back with z1 dead", Duration.ofMinutes(2),
          () -> ZoneLoss.describeOrWhyNot(meta), () -> writers.assertNoAckedWriteLost(client::batchGet));
    }
  }
}
