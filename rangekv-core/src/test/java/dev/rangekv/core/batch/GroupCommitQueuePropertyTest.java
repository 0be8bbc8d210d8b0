package dev.rangekv.core.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.testkit.Property;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

class GroupCommitQueuePropertyTest {

  /** An item: its offer order and its size. */
  private record Item(int seq, long bytes) {}

  @Test
  void randomOffersAndCompletions_matchTheModel() {
    Property.named("group commit vs model").cases(1000).sizes(1, 300).check(g -> {
      int maxInFlight = g.between(1, 4);
      int maxItems = g.between(1, 8);
      long maxBytes = g.between(1, 400);
      GroupCommitQueue<Item> q = new GroupCommitQueue<>(maxInFlight, maxItems, maxBytes, Item::bytes);
      Deque<List<Item>> out = new ArrayDeque<>(); // batches sent, oldest first (completions may come in any order)
      List<Item> sent = new ArrayList<>();
      int offered = 0;
      for (int step = 0; step < g.size(); step++) {
        List<Item> batch;
        if (out.isEmpty() || g.chance(0.6)) {
          batch = q.offer(new Item(offered++, g.between(1, 200)));
        } else {
          List<Item> done = g.nextBoolean() ? out.pollFirst() : out.pollLast();
          assertThat(done).isNotNull();
          batch = q.completed();
        }
        if (!batch.isEmpty()) {
          out.add(batch);
          sent.addAll(batch);
          assertThat(batch.size()).isLessThanOrEqualTo(maxItems);
          long bytes = batch.stream().mapToLong(Item::bytes).sum();
          assertThat(batch.size() == 1 || bytes <= maxBytes).as("batch within bytes unless one item").isTrue();
        }
        // the model: in flight = batches sent and not completed; nothing waits while a slot is free
        assertThat(q.inFlight()).isEqualTo(out.size()).isLessThanOrEqualTo(maxInFlight);
        assertThat(q.inFlight() < maxInFlight ? q.waiting() : 0).isZero();
        assertThat(sent.size() + q.waiting()).isEqualTo(offered);
      }
      for (int i = 0; i < sent.size(); i++) {
        assertThat(sent.get(i).seq()).as("items leave once, in offer order").isEqualTo(i);
      }
      while (!out.isEmpty()) {
        out.poll();
        List<Item> next = q.completed();
        if (!next.isEmpty()) {
          out.add(next);
          sent.addAll(next);
        }
      }
      assertThat(q.isIdle()).isTrue();
      assertThat(sent).hasSize(offered);
    });
  }

  @Test
  void anIdleQueue_sendsAnItemAtOnce_andOneArrivingDuringAFlightWaitsForIt() {
    GroupCommitQueue<String> q = new GroupCommitQueue<>(1, 10, 1000, s -> 1);
    assertThat(q.offer("a")).containsExactly("a");
    assertThat(q.offer("b")).isEmpty();
    assertThat(q.offer("c")).isEmpty();
    assertThat(q.completed()).containsExactly("b", "c");
    assertThat(q.completed()).isEmpty();
    assertThat(q.isIdle()).isTrue();
  }

  @Test
  void aCompletionWithNothingInFlight_isABug() {
    GroupCommitQueue<String> q = new GroupCommitQueue<>(1, 1, 1, s -> 1);
    assertThatThrownBy(q::completed).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> new GroupCommitQueue<String>(0, 1, 1, s -> 1)).isInstanceOf(IllegalArgumentException.class);
  }
}
