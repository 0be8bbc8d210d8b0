package dev.rangekv.meta.state;

import static dev.rangekv.meta.state.WireView.wire;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.meta.Bootstrap;
import dev.rangekv.proto.meta.MetaCommand;
import dev.rangekv.proto.meta.MetaRangeEntry;
import dev.rangekv.proto.meta.MetaSnapshot;
import dev.rangekv.proto.meta.NodeHeartbeat;
import dev.rangekv.proto.meta.ReportDescriptorsRequest;
import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * MetaState's map against {@link PointModel}: a {@link ClusterModel} splits, merges and moves ranges
 * at random; its descriptors (current and stale, duplicated) are reported in random order through
 * report and heartbeat commands, then every true descriptor arrives.
 */
class MetaStatePropertyTest {

  @Test
  void reportedDescriptors_reconcileLikeTheModel_andConvergeToTheTrueMap() {
    Property.named("meta map vs point model").cases(1000).sizes(1, 40).check(g -> {
      ClusterModel cluster = new ClusterModel(g);
      MetaLimits limits = new MetaLimits(50, g.chance(0.3) ? g.between(1, 4) : 4096);
      MetaState state = MetaState.empty(limits).apply(bootstrap(cluster.current()));
      PointModel model = new PointModel(cluster.current());
      List<List<RangeDescriptor>> mapAt = new ArrayList<>();
      mapAt.add(List.of());
      mapAt.add(state.ranges());
      long[] highestReported = new long[ClusterModel.POINTS + 1];
      noteReported(highestReported, cluster.current());
      check(state, model, highestReported);

      for (int step = 0; step < g.size(); step++) {
        for (int k = g.between(0, 2); k > 0; k--) {
          cluster.step(g);
        }
        List<RangeDescriptorProto> batch = new ArrayList<>();
        for (int k = g.between(1, 4); k > 0; k--) {
          batch.add(g.chance(0.5) ? g.pick(cluster.history) : g.pick(cluster.current()));
        }
        long versionBefore = state.mapVersion();
        state = state.apply(reportOrHeartbeat(g, batch, step));
        boolean changed = model.report(batch);
        noteReported(highestReported, batch);
        assertThat(state.mapVersion()).isEqualTo(versionBefore + (changed ? 1 : 0));
        if (changed) {
          mapAt.add(state.ranges());
        }
        check(state, model, highestReported);
        if (g.chance(0.1)) {
          state = roundTrip(state, limits);
        }
      }

      List<RangeDescriptorProto> truth = new ArrayList<>(cluster.current());
      Collections.shuffle(truth, new java.util.Random(g.nextLong()));
      for (int from = 0; from < truth.size(); ) {
        int to = Math.min(truth.size(), from + g.between(1, 3));
        state = state.apply(reportOrHeartbeat(g, truth.subList(from, to), from));
        model.report(truth.subList(from, to));
        if (state.mapVersion() == mapAt.size()) {
          mapAt.add(state.ranges());
        }
        from = to;
      }
      assertThat(wire(state).ranges()).isEqualTo(cluster.current());
      assertThat(state.toSnapshot().getRangesList()).noneMatch(MetaRangeEntry::getProvisional);
      MetaState last = state;
      assertThat(cluster.current()).allSatisfy(r -> assertThat(last.provisional(r.getRangeId())).isFalse());
      assertThat(mapAt).hasSize((int) state.mapVersion() + 1);
      for (int v = 0; v < mapAt.size(); v++) {
        assertThat(MapChanges.apply(mapAt.get(v), state.changesSince(v)))
            .as("map at version %d plus changesSince(%d)", v, v)
            .isEqualTo(state.ranges());
      }
      assertThat(roundTrip(state, limits).toSnapshot()).isEqualTo(state.toSnapshot());
    });
  }

  private static MetaState roundTrip(MetaState s, MetaLimits limits) throws Exception {
    MetaSnapshot snap = MetaSnapshot.parseFrom(s.toSnapshot().toByteArray());
    MetaState back = MetaState.fromSnapshot(snap, limits);
    assertThat(back.toSnapshot()).isEqualTo(s.toSnapshot());
    return back;
  }

  private static MetaCommand bootstrap(List<RangeDescriptorProto> ranges) {
    return MetaCommand.newBuilder().setAtMillis(1).setBootstrap(Bootstrap.newBuilder().addAllRanges(ranges)).build();
  }

  private static MetaCommand reportOrHeartbeat(Gen g, List<RangeDescriptorProto> batch, int step) {
    MetaCommand.Builder b = MetaCommand.newBuilder().setAtMillis(1000L + step);
    if (g.nextBoolean()) {
      return b.setReport(ReportDescriptorsRequest.newBuilder().addAllRanges(batch)).build();
    }
    NodeRecord node = NodeRecord.newBuilder().setNodeId("n" + g.between(1, 5)).build();
    return b.setHeartbeat(NodeHeartbeat.newBuilder().setNode(node).addAllRanges(batch)).build();
  }

  private static void noteReported(long[] highest, List<RangeDescriptorProto> ds) {
    for (RangeDescriptorProto d : ds) {
      for (int p : PointModel.points(d)) {
        highest[p] = Math.max(highest[p], d.getGeneration());
      }
    }
  }

  /** The state's entries are exactly the model's: per point descriptor, flag, and entry boundaries. */
  private static void check(MetaState state, PointModel model, long[] highestReported) {
    List<MetaRangeEntry> entries = state.toSnapshot().getRangesList();
    RangeTable.checkTiling(state.ranges());
    Map<Integer, Integer> entryOfPoint = new HashMap<>();
    for (int i = 0; i < entries.size(); i++) {
      for (int p : PointModel.points(entries.get(i).getRange())) {
        entryOfPoint.put(p, i);
      }
    }
    for (int p = 0; p <= ClusterModel.POINTS; p++) {
      MetaRangeEntry e = entries.get(entryOfPoint.get(p));
      RangeDescriptorProto want = model.desc(p);
      RangeDescriptorProto got = e.getRange();
      assertThat(wire(state).lookup(ClusterModel.key(p))).isEqualTo(got);
      assertThat(got.getRangeId()).as("id at point %d", p).isEqualTo(want.getRangeId());
      assertThat(got.getGeneration()).as("generation at point %d", p).isEqualTo(want.getGeneration());
      assertThat(got.getReplicasList()).isEqualTo(want.getReplicasList());
      assertThat(e.getProvisional()).as("provisional at point %d", p).isEqualTo(model.provisional(p));
      if (!e.getProvisional()) {
        assertThat(got).as("a real entry is a reported descriptor").isEqualTo(want);
      }
      assertThat(got.getGeneration()).isLessThanOrEqualTo(highestReported[p]);
      if (p > 0) {
        boolean sameEntry = entryOfPoint.get(p).equals(entryOfPoint.get(p - 1));
        assertThat(sameEntry).as("entry boundary before point %d", p).isEqualTo(model.entry(p) == model.entry(p - 1));
      }
    }
  }
}
