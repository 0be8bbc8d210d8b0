package dev.rangekv.bench.multiraft;

import io.microraft.model.message.AppendEntriesRequest;
import io.microraft.model.message.AppendEntriesSuccessResponse;
import io.microraft.model.message.PreVoteRequest;
import io.microraft.model.message.PreVoteResponse;
import io.microraft.model.message.RaftMessage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread of a node-wide runtime, driving every group pinned to it. A cycle runs the due timers and
 * the queued tasks (incoming messages, client operations, MicroRaft's own tasks); every group store
 * and apply of the cycle writes into one batch; the cycle ends with one synced write of that batch,
 * and only then are the cycle's outbound messages released (one envelope per peer node) and its client
 * acknowledgements completed. A group's tasks all run on this thread, so they stay serial, as MicroRaft
 * requires. Thread-safety: {@link #submit}, {@link #afterSync} and the counters may be used from any
 * thread; everything else belongs to the stripe's thread.
 */
final class Stripe implements WriteTarget {
  private static final Logger log = LoggerFactory.getLogger(Stripe.class);
  private static final int MAX_TASKS_PER_CYCLE = 4096;

  /** How the cycle's envelopes reach the peers. */
  interface Network {
    void deliver(int toNode, List<RaftMessage> envelope);
  }

  private record Timer(long deadline, long seq, Runnable task) {}

  private record Deferred(GroupStore store, Runnable task) {}

  private final Thread thread;
  private final RocksDB db;
  private final WriteOptions sync;
  private final Network network;
  private final boolean releaseBeforeSync;
  private final boolean pipelined;
  private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final PriorityQueue<Timer> timers = new PriorityQueue<>(
      (a, b) -> a.deadline != b.deadline ? Long.compare(a.deadline, b.deadline) : Long.compare(a.seq, b.seq));
  private final WriteBatch batch = new WriteBatch();
  private final Set<GroupStore> touched = Collections.newSetFromMap(new IdentityHashMap<>());
  private final List<List<RaftMessage>> outbox = new ArrayList<>();
  private final List<List<GroupStore>> outboxFrom = new ArrayList<>();
  private final List<List<RaftMessage>> early = new ArrayList<>();
  private final List<List<GroupStore>> earlyFrom = new ArrayList<>();
  private final List<Runnable> acks = new ArrayList<>();
  private List<Deferred> nextCycle = new ArrayList<>();
  private volatile boolean running = true;
  private volatile boolean parked;
  private long timerSeq;

  final AtomicLong cycles = new AtomicLong();
  final AtomicLong syncs = new AtomicLong();
  final AtomicLong envelopes = new AtomicLong();
  final AtomicLong messages = new AtomicLong();
  final AtomicLong unsyncedReleases = new AtomicLong();
  final AtomicLong taskFailures = new AtomicLong();

  Stripe(String name, RocksDB db, WriteOptions sync, int nodes, Network network, boolean pipelined,
      boolean releaseBeforeSync) {
    this.db = db;
    this.sync = sync;
    this.network = network;
    this.pipelined = pipelined;
    this.releaseBeforeSync = releaseBeforeSync;
    for (int i = 0; i < nodes; i++) {
      outbox.add(new ArrayList<>());
      early.add(new ArrayList<>());
      earlyFrom.add(new ArrayList<>());
      outboxFrom.add(new ArrayList<>());
    }
    this.thread = new Thread(this::loop, name);
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** Stops after the current cycle; a batch not yet written is dropped, as a crash would drop it. */
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

  /** Runs {@code ack} after the sync of the cycle that is running now, or of a later one. */
  void afterSync(Runnable ack) {
    if (onStripe()) {
      acks.add(ack);
    } else {
      submit(() -> acks.add(ack));
    }
  }

  boolean pipelined() {
    return pipelined;
  }

  /**
   * Runs {@code task} first thing in the next cycle, after this cycle's sync and before anything the
   * group does next, so that everything its log holds when the task runs is durable.
   */
  void afterThisCycle(GroupStore store, Runnable task) {
    if (onStripe()) {
      nextCycle.add(new Deferred(store, task));
    } else {
      submit(() -> nextCycle.add(new Deferred(store, task)));
    }
  }

  /** Queues a message for release at the end of this cycle; called by a group's transport. */
  void send(GroupStore from, int toNode, RaftMessage message) {
    if (pipelined && message instanceof AppendEntriesRequest) {
      early.get(toNode).add(message);
      earlyFrom.get(toNode).add(from);
      return;
    }
    outbox.get(toNode).add(message);
    outboxFrom.get(toNode).add(from);
  }

  @Override
  public WriteBatch batch() {
    return batch;
  }

  @Override
  public void wrote(GroupStore store) {
    touched.add(store);
  }

  @Override
  public void flush(GroupStore store) {
    // the cycle's one synced write makes it durable; nothing this group sends leaves before that
    touched.add(store);
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
      } catch (RocksDBException e) {
        log.error("stripe sync failed, stopping thread={}", thread.getName(), e);
        return;
      }
      if (tasks.isEmpty() && nextCycle.isEmpty()) {
        park();
      }
    }
  }

  private void runDeferred() {
    if (nextCycle.isEmpty()) {
      return;
    }
    List<Deferred> due = nextCycle;
    nextCycle = new ArrayList<>();
    for (Deferred d : due) {
      if (d.store().appendedIndex() > d.store().durableIndex()) {
        unsyncedReleases.incrementAndGet(); // the leader would count an entry that is not yet durable
      }
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
      taskFailures.incrementAndGet();
      log.error("stripe task failed thread={}", thread.getName(), e);
    }
  }

  private void endCycle() throws RocksDBException {
    cycles.incrementAndGet();
    releaseEarly();
    if (releaseBeforeSync) {
      release();
    }
    if (batch.count() > 0) {
      db.write(sync, batch);
      batch.clear();
      syncs.incrementAndGet();
    }
    for (GroupStore store : touched) {
      store.markDurable();
    }
    touched.clear();
    release();
    for (Runnable ack : acks) {
      ack.run();
    }
    acks.clear();
  }

  private void release() {
    for (int node = 0; node < outbox.size(); node++) {
      List<RaftMessage> out = outbox.get(node);
      if (out.isEmpty()) {
        continue;
      }
      List<GroupStore> from = outboxFrom.get(node);
      for (int i = 0; i < out.size(); i++) {
        if (!covered(from.get(i), out.get(i))) {
          if (unsyncedReleases.getAndIncrement() == 0) {
            GroupStore store = from.get(i);
            log.warn("message released before its sync message={} durableTerm={} durableIndex={}", out.get(i),
                store.durableTerm(), store.durableIndex());
          }
        }
      }
      envelopes.incrementAndGet();
      messages.addAndGet(out.size());
      network.deliver(node, List.copyOf(out));
      out.clear();
      from.clear();
    }
  }

  /** A leader's append requests of this cycle, before the sync (pipelined runtime): only the term is checked. */
  private void releaseEarly() {
    for (int node = 0; node < early.size(); node++) {
      List<RaftMessage> out = early.get(node);
      if (out.isEmpty()) {
        continue;
      }
      List<GroupStore> from = earlyFrom.get(node);
      for (int i = 0; i < out.size(); i++) {
        if (out.get(i).getTerm() > from.get(i).durableTerm()) {
          unsyncedReleases.incrementAndGet();
        }
      }
      from.clear();
      envelopes.incrementAndGet();
      messages.addAndGet(out.size());
      network.deliver(node, List.copyOf(out));
      out.clear();
    }
  }

  /** Whether the sender's durable log and term cover what {@code message} says it has stored. */
  static boolean covered(GroupStore store, RaftMessage message) {
    if (message instanceof PreVoteRequest || message instanceof PreVoteResponse) {
      return true; // a pre-vote asks about the next term without changing any state
    }
    if (message.getTerm() > store.durableTerm()) {
      return false;
    }
    if (message instanceof AppendEntriesRequest request && !request.getLogEntries().isEmpty()) {
      return request.getLogEntries().get(request.getLogEntries().size() - 1).getIndex() <= store.durableIndex();
    }
    if (message instanceof AppendEntriesSuccessResponse response) {
      return response.getLastLogIndex() <= store.durableIndex();
    }
    return true;
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
