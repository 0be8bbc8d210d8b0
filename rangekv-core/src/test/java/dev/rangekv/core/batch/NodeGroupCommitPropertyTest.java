package dev.rangekv.core.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.testkit.Property;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeGroupCommitPropertyTest {

  /** An item: its lane, its offer order within the lane, and its size. */
  private record Item(int lane, int seq, long bytes) {}

  /** A batch the model saw leave: its items and when it left. */
  private record Out(List<Item> items, long started) {}

  @Test
  void randomOffersCompletionsAndTicks_matchTheModel() {
    Property.named("node group commit vs model").cases(1000).sizes(1, 300).check(g -> {
      int lanes = g.between(1, 5);
      int maxActive = g.between(1, 3);
      long stall = g.between(1, 40);
      int perLane = g.between(1, 2);
      int maxItems = g.between(1, 6);
      long maxBytes = g.between(1, 400);
      NodeGroupCommit<Integer, Item> c = new NodeGroupCommit<>(maxActive, stall, perLane, maxItems, maxBytes, Item::bytes);
      Map<Integer, ArrayDeque<Out>> out = new HashMap<>();
      Map<Integer, List<Item>> sent = new HashMap<>();
      Map<Integer, Integer> offered = new HashMap<>();
      for (int lane = 0; lane < lanes; lane++) {
        out.put(lane, new ArrayDeque<>());
        sent.put(lane, new ArrayList<>());
        offered.put(lane, 0);
      }
      // fairness: batches other lanes sent since each lane became ready to send (-1: not ready)
      Map<Integer, Integer> overtakenBy = new HashMap<>();
      long now = 0;
      for (int step = 0; step < g.size(); step++) {
        now += g.chance(0.5) ? 0 : g.between(1, 15);
        int lane = g.between(0, lanes - 1);
        List<NodeGroupCommit.Batch<Integer, Item>> batches;
        double roll = g.random().nextDouble();
        if (roll < 0.5) {
          int seq = offered.merge(lane, 1, Integer::sum) - 1;
          batches = c.offer(lane, new Item(lane, seq, g.between(1, 200)), now);
        } else if (roll < 0.85 && !out.get(lane).isEmpty()) {
          out.get(lane).pollFirst(); // a lane's batches complete oldest first (one Raft log)
          batches = c.completed(lane, now);
        } else {
          batches = c.tick(now);
        }
        for (NodeGroupCommit.Batch<Integer, Item> b : batches) {
          for (Map.Entry<Integer, Integer> waiting : overtakenBy.entrySet()) {
            if (waiting.getKey() != b.lane() && waiting.getValue() >= 0) {
              waiting.setValue(waiting.getValue() + 1);
              assertThat(waiting.getValue()).as("lane %d, ready to send, overtaken by other lanes' batches (turns"
                  + " go round: each lane ahead of it sends once)", waiting.getKey()).isLessThanOrEqualTo(lanes - 1);
            }
          }
          overtakenBy.put(b.lane(), -1);
          out.get(b.lane()).add(new Out(b.items(), now));
          sent.get(b.lane()).addAll(b.items());
          assertThat(b.items()).isNotEmpty().hasSizeLessThanOrEqualTo(maxItems);
          assertThat(b.items()).allMatch(i -> i.lane() == b.lane());
          long bytes = b.items().stream().mapToLong(Item::bytes).sum();
          assertThat(b.items().size() == 1 || bytes <= maxBytes).as("batch within bytes unless one item").isTrue();
        }
        // the model: batches out that still count, lanes that could send
        long t = now;
        long counting = out.values().stream().flatMap(ArrayDeque::stream).filter(o -> o.started() > t - stall).count();
        boolean anyCouldSend = false;
        for (int l = 0; l < lanes; l++) {
          assertThat(out.get(l).size()).as("lane %d's batches out", l).isLessThanOrEqualTo(perLane);
          boolean waits = sent.get(l).size() < offered.get(l);
          boolean ready = waits && out.get(l).size() < perLane;
          anyCouldSend |= ready;
          if (!ready) {
            overtakenBy.put(l, -1);
          } else if (overtakenBy.getOrDefault(l, -1) < 0) {
            overtakenBy.put(l, 0); // became ready in this step: batches from now on count against it
          }
        }
        assertThat(counting).as("batches out that count").isLessThanOrEqualTo(maxActive).isEqualTo(c.active());
        if (anyCouldSend) {
          assertThat(counting).as("a lane waits only while the node's slots are all taken").isEqualTo(maxActive);
          long oldest = out.values().stream().flatMap(ArrayDeque::stream).mapToLong(Out::started)
              .filter(s -> s > t - stall).min().orElseThrow();
          assertThat(c.nextTick()).as("a tick is due when the oldest counting batch stalls").hasValue(oldest + stall);
        } else {
          assertThat(c.nextTick()).isEmpty();
        }
      }
      // everything completes: every item leaves, once, in its lane's offer order
      boolean progress = true;
      while (progress) {
        progress = false;
        for (int l = 0; l < lanes; l++) {
          if (!out.get(l).isEmpty()) {
            out.get(l).pollFirst();
            for (NodeGroupCommit.Batch<Integer, Item> b : c.completed(l, now)) {
              out.get(b.lane()).add(new Out(b.items(), now));
              sent.get(b.lane()).addAll(b.items());
            }
            progress = true;
          }
        }
      }
      for (int l = 0; l < lanes; l++) {
        List<Item> items = sent.get(l);
        assertThat(items).hasSize(offered.get(l));
        for (int i = 0; i < items.size(); i++) {
          assertThat(items.get(i).seq()).as("lane %d's items leave once, in offer order", l).isEqualTo(i);
        }
        assertThat(c.idle(l)).isTrue();
      }
      assertThat(c.active()).isZero();
      assertThat(c.queuedLanes()).isZero();
    });
  }

  @Test
  void aRangeThatFindsTheNodeBusy_waitsForASlot_andCollectsWritesMeanwhile() {
    NodeGroupCommit<String, String> c = new NodeGroupCommit<>(1, 100, 1, 10, 1000, s -> 1);
    assertThat(c.offer("a", "a1", 0)).containsExactly(new NodeGroupCommit.Batch<>("a", List.of("a1")));
    assertThat(c.offer("b", "b1", 1)).isEmpty();
    assertThat(c.offer("b", "b2", 2)).isEmpty();
    assertThat(c.offer("a", "a2", 3)).isEmpty();
    // a's entry completes: b waited first, so b goes next, with both its writes; a waits its turn
    assertThat(c.completed("a", 4)).containsExactly(new NodeGroupCommit.Batch<>("b", List.of("b1", "b2")));
    assertThat(c.completed("b", 5)).containsExactly(new NodeGroupCommit.Batch<>("a", List.of("a2")));
    assertThat(c.completed("a", 6)).isEmpty();
    assertThat(c.idle("a") && c.idle("b")).isTrue();
  }

  @Test
  void aStalledEntry_stopsHoldingUpOtherRanges_afterTheStallTime() {
    NodeGroupCommit<String, String> c = new NodeGroupCommit<>(1, 100, 1, 10, 1000, s -> 1);
    c.offer("stuck", "s1", 0);
    assertThat(c.offer("b", "b1", 10)).isEmpty();
    assertThat(c.nextTick()).hasValue(100);
    assertThat(c.tick(99)).isEmpty();
    assertThat(c.tick(100)).containsExactly(new NodeGroupCommit.Batch<>("b", List.of("b1")));
    assertThat(c.completed("stuck", 150)).isEmpty();
    assertThat(c.active()).isEqualTo(1);
  }

  @Test
  void aCompletionWithNothingOut_isABug() {
    NodeGroupCommit<String, String> c = new NodeGroupCommit<>(1, 100, 1, 10, 1000, s -> 1);
    assertThatThrownBy(() -> c.completed("a", 0)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> new NodeGroupCommit<String, String>(0, 1, 1, 1, 1, s -> 1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
