package dev.rangekv.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.admin.PlacementAdmin;
import dev.rangekv.client.admin.SetPlacementResult;
import dev.rangekv.core.cluster.PlacementRule;
import dev.rangekv.core.key.Key;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.proto.ReplicaProto;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import dev.rangekv.testcluster.AckedWriters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Placement rules on a 5-node in-JVM cluster in 3 zones (z1: n1, n4, n5; z2: n2; z3: n3): the whole
 * keyspace keeps 3 replicas spread over the zones, the writers' span {@code user} prefers leaders in
 * z2, and the span {@code tenant/42/} is pinned to z1 by a rule set while its keys are being written.
 * Under writes, the controller splits at the rule boundaries, moves the tenant's replicas into z1 and
 * leaderships to z2, and every other range keeps replicas in 3 distinct zones; nothing acknowledged is
 * lost. The leader preference holds again after z2's node restarts. Then, once the controller is quiet
 * (meta voters in 3 zones, every range conforming, no move in flight), all of z1 is killed: every
 * range outside the tenant keeps serving reads and writes and every acknowledged write reads back.
 */
class PlacementRulesIT {
  static final List<String> ZONES = ZoneLoss.ZONES;
  static final Key TENANT = Key.utf8("tenant/42/");
  static final Key USER = Key.utf8("user");

  @TempDir Path dir;

  @Test
  @Timeout(900)
  void rulesPinATenant_spreadZones_andPreferLeaders_throughARestart() throws Exception {
    try (LocalCluster cluster = LocalCluster.startZoned(ZONES, dir, RaftTuning.forTests(), ControllerClusters.config());
        MetaProbe meta = new MetaProbe(cluster);
        RangeKvClient client = ControllerClusters.client(cluster);
        PlacementAdmin admin = PlacementAdmin.connect(seeds(cluster), Duration.ofSeconds(30))) {
      // the whole keyspace: 3 replicas spread over the zones (also after a node returns from the dead)
      admin.set(new PlacementRule(Key.EMPTY, dev.rangekv.core.key.RangeEnd.INFINITY, 3, List.of(), List.of(), List.of(), 0));
      SetPlacementResult users = admin.set(PlacementRule.forPrefix(USER, 3, List.of(), List.of(), List.of("z2")));
      assertThat(users.warning()).isEmpty();
      // the tenant's keys are being written when its rule arrives: the split at its boundary and the
      // moves into z1 happen under these writes
      AckedWriters tenantWriters = ClientWriters.start(client, 2,
          n -> Key.utf8(String.format("tenant/42/%06d", n)), 1 << 10, 3000);
      MetaProbe.await("tenant writes under way", Duration.ofMinutes(1), () -> tenantWriters.ackedCount() >= 100);
      SetPlacementResult tenant = admin.set(PlacementRule.forPrefix(TENANT, 3, List.of(), List.of("z1"), List.of()));
      assertThat(tenant.warning()).isEmpty();
      assertThat(admin.list().rules()).hasSize(3);
      assertThat(admin.list().version()).isEqualTo(3);

      AckedWriters userWriters = ClientWriters.start(client, 6, ControllerClusters::uniformKey, 16 << 10, 300);
      meta.awaitOrDump("the tenant's range sits in z1, user ranges lead from z2, all others span 3 zones",
          Duration.ofMinutes(4), () -> conforming(meta.ranges()));
      userWriters.join();
      tenantWriters.join();
      meta.awaitOrDump("conformance after the writes", Duration.ofMinutes(2), () -> conforming(meta.ranges()));
      assertThat(meta.events("placement-set")).hasSize(3);
      assertThat(meta.ranges()).anyMatch(r -> ProtoValues.key(r.getRange().getStart()).equals(TENANT));
      userWriters.assertNoAckedWriteLost(client::batchGet);
      tenantWriters.assertNoAckedWriteLost(client::batchGet);

      long steadyFrom = lastSeq(meta); // no more writes: the load stays as it is from here
      cluster.stop(1); // z2's only node: its leaderships move to z1 or z3
      cluster.restart(1);
      meta.awaitOrDump("leaders of user ranges back in z2 after n2 restarted", Duration.ofMinutes(3),
          () -> conforming(meta.ranges()));

      // Kill all of z1 only once the controller's state says every range is spread and nothing moves:
      // a move in flight has 4 voters for a moment, and 2 of 4 are no majority.
      meta.awaitOrDump("meta voters in 3 zones, every range conforming, no move in flight on 3 polls in a row",
          Duration.ofMinutes(3), new ZoneLoss.Steady(3, () -> ZoneLoss.quiet(cluster) && conforming(meta.ranges())));
      ZoneLoss.assertNoMoveUndone(meta.events(), steadyFrom);
      List<RangeStatsProto> before = meta.ranges();
      ZoneLoss.killZ1(cluster);
      // every 3-zone range has its z2 and z3 replicas, a majority: once they elect, it serves reads and writes
      ZoneLoss.assertServed(cluster, meta, client, before, r -> !ProtoValues.key(r.getRange().getStart()).startsWith(TENANT));
      ZoneLoss.awaitServed("every acknowledged user write reads back with z1 dead", Duration.ofMinutes(2),
          () -> ZoneLoss.describeOrWhyNot(meta), () -> userWriters.assertNoAckedWriteLost(client::batchGet));
      AckedWriters after = ClientWriters.start(client, 2, n -> ControllerClusters.uniformKey(1_000_000 + n), 1 << 10, 200);
      after.join();
      assertThat(after.ackedCount()).as("writes acknowledged with z1 dead (failures: %d)", after.failures())
          .isPositive();
      ZoneLoss.awaitServed("the writes made with z1 dead read back", Duration.ofMinutes(1),
          () -> after.assertNoAckedWriteLost(client::batchGet));
    }
  }

  static long lastSeq(MetaProbe meta) {
    List<dev.rangekv.proto.EventProto> events = meta.events();
    return events.isEmpty() ? 0 : events.get(events.size() - 1).getSeq();
  }

  static List<String> seeds(LocalCluster cluster) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < cluster.size(); i++) {
      out.add(cluster.config(i).clientAddress());
    }
    return out;
  }

  /** The rules' conditions, checked against the meta range's map and the leaders' reports. */
  static boolean conforming(List<RangeStatsProto> ranges) {
    for (RangeStatsProto r : ranges) {
      Key start = ProtoValues.key(r.getRange().getStart());
      boolean underTenant = start.startsWith(TENANT);
      boolean underUser = start.startsWith(USER);
      Set<String> zones = new HashSet<>();
      for (ReplicaProto p : r.getRange().getReplicasList()) {
        zones.add(ZONES.get(Integer.parseInt(p.getNodeId().substring(1)) - 1));
      }
      if (r.getRange().getReplicasCount() != 3 || !r.getPlacementViolations().isEmpty()) {
        return false;
      }
      if (underTenant ? !zones.equals(Set.of("z1")) : zones.size() != 3) {
        return false;
      }
      if (underUser && !r.getLeaderNodeId().equals("n2")) {
        return false;
      }
    }
    // both rule spans have their own ranges: the controller split at their boundaries
    return ranges.stream().anyMatch(r -> ProtoValues.key(r.getRange().getStart()).equals(TENANT))
        && ranges.stream().anyMatch(r -> ProtoValues.key(r.getRange().getStart()).equals(USER));
  }
}
