package dev.rangekv.server.multiraft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.rangekv.proto.multiraft.RaftMsg;
import dev.rangekv.storage.raftlog.LogBatch;
import dev.rangekv.storage.raftlog.LogDb;
import io.microraft.model.log.LogEntry;
import io.microraft.model.message.RaftMessage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stripe's cycles against a log writer the test holds: what waits for a write, what leaves together, and
 * that a deferred task (MicroRaft's flush task) runs only once its group's whole log is durable.
 */
class StripeTest {
  private static final NodeEndpoint N1 = new NodeEndpoint("n1");
  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir
  Path dir;

  private LogDb db;
  private Stripe stripe;
  private final GatedWriter writer = new GatedWriter();
  private final List<Sent> sent = new CopyOnWriteArrayList<>();
  private final List<String> events = Collections.synchronizedList(new ArrayList<>());

  private record Sent(String node, List<RaftMsg> envelope) {}

  /** Holds every write until the test lets it through; records each batch's size. */
  private final class GatedWriter implements Stripe.LogWriter {
    final BlockingQueue<Integer> entered = new LinkedBlockingQueue<>();
    final Semaphore gate = new Semaphore(0);

    @Override
    public void write(LogBatch batch, boolean sync) {
      entered.add(batch.count());
      gate.acquireUninterruptibly();
      db.write(batch, sync);
      events.add("written");
    }

    int nextWrite() throws InterruptedException {
      Integer n = entered.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(n).as("a write reached the writer").isNotNull();
      return n;
    }
  }

  private void start(boolean align) {
    db = LogDb.open(dir.resolve("log"));
    stripe = new Stripe("test-stripe", db, writer, true, align, (node, envelope) -> sent.add(new Sent(node, envelope)));
    stripe.start();
  }

  @AfterEach
  void stop() throws InterruptedException {
    writer.gate.release(1_000);
    if (stripe != null) {
      stripe.stop();
    }
    if (db != null) {
      db.close();
    }
  }

  private static LogEntry entry(long index) {
    return RaftCodec.MODEL.createLogEntryBuilder().setIndex(index).setTerm(1).setOperation(RaftCodec.NewTerm.INSTANCE)
        .build();
  }

  private static RaftMessage vote(long group) {
    return RaftCodec.MODEL.createVoteResponseBuilder().setGroupId(group).setSender(N1).setTerm(1).setGranted(true)
        .build();
  }

  private static RaftMessage append(long group, long commit) {
    return RaftCodec.MODEL.createAppendEntriesRequestBuilder().setGroupId(group).setSender(N1).setTerm(1)
        .setPreviousLogTerm(1).setPreviousLogIndex(1).setCommitIndex(commit).setLogEntries(List.of())
        .setQuerySequenceNumber(0).setFlowControlSequenceNumber(0).build();
  }

  @Test
  void aligned_tasksQueuedDuringAWrite_runInOneCycleAfterIt_andEachPeerGetsOneEnvelope() throws Exception {
    start(true);
    GroupLog a = new GroupLog(1, stripe);
    GroupLog b = new GroupLog(2, stripe);
    stripe.submit(() -> {
      a.persistLogEntries(List.of(entry(1)));
      b.persistLogEntries(List.of(entry(1)));
      stripe.send(a, new NodeEndpoint("n2"), vote(1)); // a reply: leaves only after the write holding the appends
    });
    assertThat(writer.nextWrite()).isEqualTo(2);
    long wakeups = stripe.wakeups.get();
    for (int i = 0; i < 10; i++) {
      int n = i;
      stripe.submit(() -> {
        events.add("task");
        GroupLog g = n % 2 == 0 ? a : b;
        g.persistLogEntries(List.of(entry(2 + n / 2)));
        stripe.send(g, new NodeEndpoint("n2"), append(g.rangeId(), n)); // a leader's append request of a durable term
        stripe.send(g, new NodeEndpoint("n3"), append(g.rangeId(), n));
      });
    }
    assertThat(sent).as("nothing leaves before the write that the reply depends on").isEmpty();
    writer.gate.release();

    // the ten tasks ran after the write returned, all their appends went into the next write
    assertThat(writer.nextWrite()).isEqualTo(10);
    assertThat(events.subList(0, 11)).containsExactly("written", "task", "task", "task", "task", "task", "task",
        "task", "task", "task", "task");
    assertThat(stripe.wakeups.get() - wakeups).as("only the write's return woke the stripe").isEqualTo(1);
    // the reply released by the first write and the ten early append requests: one envelope per peer
    await().atMost(WAIT).until(() -> sent.size() == 2);
    Sent toN2 = sent.stream().filter(s -> s.node().equals("n2")).findFirst().orElseThrow();
    Sent toN3 = sent.stream().filter(s -> s.node().equals("n3")).findFirst().orElseThrow();
    assertThat(toN2.envelope()).hasSize(11);
    assertThat(toN2.envelope().get(0).hasVoteReply()).isTrue();
    assertThat(toN3.envelope()).hasSize(10);
  }

  @Test
  void aligned_aReplySentDuringAWrite_waitsForTheWriteOfItsOwnCycle() throws Exception {
    start(true);
    GroupLog a = new GroupLog(1, stripe);
    stripe.submit(() -> a.persistLogEntries(List.of(entry(1))));
    assertThat(writer.nextWrite()).isEqualTo(1);
    stripe.submit(() -> {
      a.persistLogEntries(List.of(entry(2)));
      stripe.send(a, new NodeEndpoint("n2"), vote(1));
    });
    writer.gate.release();
    assertThat(writer.nextWrite()).isEqualTo(1);
    assertThat(sent).as("the reply depends on the second write, which is held").isEmpty();
    writer.gate.release();
    await().atMost(WAIT).until(() -> sent.size() == 1);
    assertThat(a.durableIndex()).isEqualTo(2);
  }

  @Test
  void aDeferredTask_runsOnlyOnceEverythingItsGroupAppendedIsDurable() throws Exception {
    // not aligned: the stripe keeps appending while a write is in flight, the case the check is for
    start(false);
    GroupLog a = new GroupLog(1, stripe);
    List<long[]> seen = new CopyOnWriteArrayList<>();
    stripe.submit(() -> {
      a.persistLogEntries(List.of(entry(1)));
      stripe.afterThisCycle(a, () -> seen.add(new long[] {a.appendedIndex(), a.durableIndex()}));
    });
    assertThat(writer.nextWrite()).isEqualTo(1);
    Semaphore appended = new Semaphore(0);
    stripe.submit(() -> {
      a.persistLogEntries(List.of(entry(2)));
      appended.release();
    });
    assertThat(appended.tryAcquire(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    writer.gate.release(); // the write of entry 1 returns; entry 2 is in the next batch
    assertThat(writer.nextWrite()).isEqualTo(1);
    assertThat(seen).as("entry 2 is not durable yet").isEmpty();
    writer.gate.release();
    await().atMost(WAIT).until(() -> seen.size() == 1);
    assertThat(seen.get(0)).containsExactly(2, 2);
  }

  @Test
  void aFlushWithNothingWritten_costsNoSyncedWrite_andItsReplyLeavesAtOnce() {
    start(true);
    GroupLog a = new GroupLog(1, stripe);
    stripe.submit(() -> {
      a.flush(); // a follower answering a heartbeat: nothing of its log is pending
      stripe.send(a, new NodeEndpoint("n2"), vote(1));
    });
    await().atMost(WAIT).until(() -> sent.size() == 1);
    assertThat(writer.entered).isEmpty();
    assertThat(stripe.syncs.get()).isZero();
  }
}
