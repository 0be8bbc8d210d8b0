package dev.rangekv.meta.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.meta.AllocateRangeIds;
import dev.rangekv.proto.meta.Bootstrap;
import dev.rangekv.proto.meta.MetaCommand;
import dev.rangekv.proto.meta.MetaSnapshot;
import dev.rangekv.proto.meta.ReportDescriptorsRequest;
import dev.rangekv.testkit.Property;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The meta state's range-id grants against a brute-force model, the set of every id granted or seen in
 * use: each grant is a block of the asked size, disjoint from that set and above all of it (ids
 * increase), through random splits that use granted ids, grants whose ids are lost (gaps), reports of
 * ranges the allocator did not grant, and restarts from the state's snapshot (a new meta leader or a
 * restarted replica loads exactly that).
 */
class RangeIdGrantsPropertyTest {

  @Test
  void grants_neverRepeat_andStayAboveEveryIdInUse() {
    Property.named("range id grants vs model").cases(500).sizes(1, 60).check(g -> {
      ClusterModel cluster = new ClusterModel(g);
      MetaState state = MetaState.empty().apply(MetaCommand.newBuilder().setAtMillis(1)
          .setBootstrap(Bootstrap.newBuilder().addAllRanges(cluster.current())).build());
      Set<Long> used = new HashSet<>();
      cluster.current().forEach(r -> used.add(r.getRangeId()));
      Deque<Long> pool = new ArrayDeque<>();
      for (int step = 0; step < g.size(); step++) {
        int op = g.nextInt(10);
        if (op < 4) {
          int count = g.chance(0.7) ? 1 : g.between(2, 20);
          state = grant(state, count, used, pool, g.chance(0.2));
        } else if (op < 8) {
          if (pool.isEmpty()) {
            state = grant(state, 1, used, pool, false);
          }
          long childId = pool.removeFirst();
          cluster.nextChildId(childId);
          cluster.step(g);
          state = state.apply(report(cluster.current()));
        } else if (op == 8) {
          // a range the allocator did not grant (a cluster older than it): grants move above it
          long foreign = state.rangeIds().next() + g.between(0, 50);
          RangeDescriptorProto any = g.pick(cluster.current());
          RangeDescriptorProto renamed = any.toBuilder().setRangeId(foreign).setGeneration(any.getGeneration() + 100)
              .build();
          used.add(foreign);
          state = state.apply(report(List.of(renamed)));
        } else {
          MetaSnapshot snap = MetaSnapshot.parseFrom(state.toSnapshot().toByteArray());
          MetaState back = MetaState.fromSnapshot(snap);
          assertThat(back.rangeIds()).isEqualTo(state.rangeIds());
          state = back;
        }
      }
    });
  }

  /** Grants {@code count} ids and checks them against the model; {@code lose}: nobody uses them (a gap). */
  private static MetaState grant(MetaState state, int count, Set<Long> used, Deque<Long> pool, boolean lose) {
    long first = state.rangeIds().next();
    MetaState after = state.apply(MetaCommand.newBuilder()
        .setAllocateRangeIds(AllocateRangeIds.newBuilder().setCount(count)).build());
    long max = used.stream().mapToLong(Long::longValue).max().orElse(0);
    assertThat(after.rangeIds().next()).isEqualTo(first + count);
    for (long id = first; id < first + count; id++) {
      assertThat(used).as("id %d granted before or in use", id).doesNotContain(id);
      assertThat(id).as("granted ids increase").isGreaterThan(max);
      used.add(id);
      if (!lose) {
        pool.addLast(id);
      }
    }
    assertThat(after.ranges()).isEqualTo(state.ranges());
    assertThat(after.mapVersion()).isEqualTo(state.mapVersion());
    return after;
  }

  private static MetaCommand report(List<RangeDescriptorProto> ranges) {
    return MetaCommand.newBuilder().setAtMillis(2)
        .setReport(ReportDescriptorsRequest.newBuilder().addAllRanges(ranges)).build();
  }
}
