package dev.rangekv.server.multiraft;

import dev.rangekv.proto.multiraft.RaftMsg;
import dev.rangekv.storage.raftlog.LogBatch;
import dev.rangekv.storage.raftlog.LogDb;
import io.microraft.model.message.AppendEntriesRequest;
import io.microraft.model.message.RaftMessage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread of the node-wide runtime, driving every range group pinned to it. A cycle runs the due
 * timers and the queued tasks (incoming envelopes, proposals, MicroRaft's own tasks); every group's
 * appends and term/vote changes of the cycle go into one {@link LogBatch}; the cycle ends with one
 * synced write of it, and only then are the cycle's messages released, one envelope per peer node.
 * Pipelined: a leader's append requests leave before that sync (Raft allows a leader to send before its
 * own write) when their term is already durable, and MicroRaft's flush task, after which a leader counts
 * its own log towards a commit, is held until the next cycle, so the leader counts synced entries only.
 * A group's tasks all run on this thread, serially, as MicroRaft requires. {@link #submit} and the
 * counters are thread-safe; everything else belongs to the stripe's thread.
 */
final class Stripe {
  private static final Logger log = LoggerFactory.getLogger(Stripe.class);
  private static final int MAX_TASKS_PER_CYCLE = 4096;

  /** How a cycle's envelopes reach the peers. */
  interface Network {
    void deliver(String toNode, List<RaftMsg> envelope);
  }

  private record Timer(long deadline, long seq, Runnable task) {}

  private record Deferred(GroupLog log, Runnable task) {}

  private record Out(GroupLog from, RaftMessage message) {}

  private final Thread thread;
  private final LogDb db;
  private final boolean syncWrites;
  private final Network network;
  private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final PriorityQueue<Timer> timers = new PriorityQueue<>(
      (a, b) -> a.deadline != b.deadline ? Long.compare(a.deadline, b.deadline) : Long.compare(a.seq, b.seq));
  private final LogBatch batch;
  private final Set<GroupLog> touched = Collections.newSetFromMap(new IdentityHashMap<>());
  private final Map<String, List<Out>> outbox = new HashMap<>();
  private final Map<String, List<Out>> early = new HashMap<>();
  private List<Deferred> nextCycle = new ArrayList<>();
  private volatile boolean running = true;
  private volatile boolean parked;
  private long timerSeq;

  final AtomicLong cycles = new AtomicLong();
  final AtomicLong syncs = new AtomicLong();
  final AtomicLong envelopes = new AtomicLong();
  final AtomicLong messages = new AtomicLong();

  Stripe(String name, LogDb db, boolean syncWrites, Network network) {
    this.db = db;
    this.syncWrites = syncWrites;
    this.network = network;
    this.batch = db.newBatch();
    this.thread = new Thread(this::loop, name);
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** Stops after the current cycle (whose batch is written); waits for the thread to end. */
  void stop() throws InterruptedException {
    running = false;
    LockSupport.unpark(thread);
    thread.join(TimeUnit.SECONDS.toMillis(10));
    batch.close();
  }

  boolean onStripe() {
    return Thread.currentThread() == thread;
  }

  void submit(Runnable task) {
    tasks.add(task);
    if (parked) {
      LockSupport.unpark(thread);
    }
  }

  void schedule(Runnable task, long delay, TimeUnit unit) {
    long deadline = System.nanoTime() + unit.toNanos(delay);
    if (onStripe()) {
      timers.add(new Timer(deadline, timerSeq++, task));
    } else {
      submit(() -> timers.add(new Timer(deadline, timerSeq++, task)));
    }
  }

  /**
   * Runs {@code task} first thing in the next cycle, after this cycle's sync and before anything the
   * group does next, so that everything its log holds when the task runs is durable.
   */
  void afterThisCycle(GroupLog log, Runnable task) {
    if (onStripe()) {
      nextCycle.add(new Deferred(log, task));
    } else {
      submit(() -> nextCycle.add(new Deferred(log, task)));
    }
  }

  /** Queues a message for release at the end of this cycle; called by a group's transport. */
  void send(GroupLog from, String toNode, RaftMessage message) {
    Map<String, List<Out>> box = message instanceof AppendEntriesRequest ? early : outbox;
    box.computeIfAbsent(toNode, n -> new ArrayList<>()).add(new Out(from, message));
  }

  LogBatch batch() {
    return batch;
  }

  void wrote(GroupLog log) {
    touched.add(log);
  }

  private void loop() {
    while (running) {
      runDeferred();
      runDueTimers();
      Runnable task;
      int n = 0;
      while (n < MAX_TASKS_PER_CYCLE && (task = tasks.poll()) != null) {
        run(task);
        n++;
      }
      try {
        endCycle();
      } catch (RuntimeException e) {
        // a log write that failed leaves the groups' durable state unknown: this stripe stops serving
        log.error("Raft log cycle write failed, stripe stops thread={}", thread.getName(), e);
        return;
      }
      if (tasks.isEmpty() && nextCycle.isEmpty()) {
        park();
      }
    }
    try {
      endCycle();
    } catch (RuntimeException e) {
      log.warn("last Raft log cycle write failed thread={}", thread.getName(), e);
    }
  }

  private void runDeferred() {
    if (nextCycle.isEmpty()) {
      return;
    }
    List<Deferred> due = nextCycle;
    nextCycle = new ArrayList<>();
    for (Deferred d : due) {
      run(d.task());
    }
  }

  private void runDueTimers() {
    long now = System.nanoTime();
    while (!timers.isEmpty() && timers.peek().deadline <= now) {
      run(timers.poll().task);
    }
  }

  private void run(Runnable task) {
    try {
      task.run();
    } catch (RuntimeException e) {
      log.error("stripe task failed thread={}", thread.getName(), e);
    }
  }

  private void endCycle() {
    cycles.incrementAndGet();
    releaseEarly();
    if (batch.count() > 0) {
      db.write(batch, syncWrites);
      batch.clear();
      syncs.incrementAndGet();
    }
    for (GroupLog g : touched) {
      g.markDurable();
    }
    touched.clear();
    release(outbox);
  }

  /**
   * A leader's append requests of this cycle, before the sync: those whose term is durable already leave
   * now; one of a term not yet synced (a new leader's first cycle) waits for the sync with the rest.
   */
  private void releaseEarly() {
    if (early.isEmpty()) {
      return;
    }
    for (Map.Entry<String, List<Out>> e : early.entrySet()) {
      List<RaftMsg> now = new ArrayList<>(e.getValue().size());
      for (Out o : e.getValue()) {
        if (o.message().getTerm() <= o.from().durableTerm()) {
          now.add(RaftCodec.encode(o.message(), o.from().initialMembers()));
        } else {
          outbox.computeIfAbsent(e.getKey(), n -> new ArrayList<>()).add(o);
        }
      }
      if (!now.isEmpty()) {
        deliver(e.getKey(), now);
      }
    }
    early.clear();
  }

  private void release(Map<String, List<Out>> box) {
    if (box.isEmpty()) {
      return;
    }
    for (Map.Entry<String, List<Out>> e : box.entrySet()) {
      List<RaftMsg> out = new ArrayList<>(e.getValue().size());
      for (Out o : e.getValue()) {
        out.add(RaftCodec.encode(o.message(), o.from().initialMembers()));
      }
      deliver(e.getKey(), out);
    }
    box.clear();
  }

  private void deliver(String node, List<RaftMsg> envelope) {
    envelopes.incrementAndGet();
    messages.addAndGet(envelope.size());
    try {
      network.deliver(node, envelope);
    } catch (RuntimeException e) {
      log.debug("envelope not delivered toNode={} error={}", node, e.toString());
    }
  }

  private void park() {
    parked = true;
    if (tasks.isEmpty() && nextCycle.isEmpty() && running) {
      long wait = timers.isEmpty() ? TimeUnit.MILLISECONDS.toNanos(100) : timers.peek().deadline - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(this, wait);
      }
    }
    parked = false;
  }
}
