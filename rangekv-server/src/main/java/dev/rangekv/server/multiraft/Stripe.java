package dev.rangekv.server.multiraft;

import dev.rangekv.proto.multiraft.Quiesce;
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
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread of the node-wide runtime, driving every range group pinned to it. A cycle runs the due
 * timers and the queued tasks (incoming envelopes, proposals, MicroRaft's own tasks); every group's
 * appends and term/vote changes go into one {@link LogBatch}; the batch is handed to the stripe's
 * syncer thread for one synced write, and only once that write returned are the messages of the cycles
 * it covers released, one envelope per peer node. Not aligned, the stripe keeps running tasks into the
 * next batch while a write is in flight, and the syncer writes it as soon as the previous one is done.
 * Aligned (the default): while a write is in flight the stripe does not wake for new tasks (only for the
 * write's return, a due timer or stop) and runs everything that queued meanwhile in one cycle after it, so
 * under load every busy range's round lines up on the fsync cadence: one cycle, one synced write and one
 * envelope per peer node per write, whatever the number of ranges. Every envelope a cycle produces (the
 * completed write's replies, this cycle's early append requests) leaves as one per peer at the cycle's end.
 * Pipelined: a leader's append requests leave before that sync (Raft allows a leader to send before its
 * own write) when their term is already durable, and MicroRaft's flush task, after which a leader counts
 * its own log towards a commit, is held until a write returned that covers everything the group's log
 * holds, so the leader counts synced entries only.
 * A group's tasks all run on this thread, serially, as MicroRaft requires. {@link #submit} and the
 * counters are thread-safe; everything else belongs to the stripe's thread.
 */
final class Stripe {
  private static final Logger log = LoggerFactory.getLogger(Stripe.class);
  private static final int MAX_TASKS_PER_CYCLE = 4096;

  /** How a cycle's envelopes reach the peers. */
  interface Network {
    void deliver(String toNode, List<RaftMsg> envelope);

    /** An envelope that also carries quiesce notices (see {@link Quiescence}); tests may drop them. */
    default void deliver(String toNode, List<RaftMsg> envelope, List<Quiesce> quiesced) {
      deliver(toNode, envelope);
    }
  }

  /** The syncer's write of a cycle's batch ({@link LogDb#write}; tests hold it to look at a cycle in flight). */
  interface LogWriter {
    void write(LogBatch batch, boolean sync);
  }

  /** Whether stripes align their cycles on the synced writes ({@code -Drangekv.multiraft.align=false}: off). */
  static final boolean ALIGN_DEFAULT = !"false".equals(System.getProperty("rangekv.multiraft.align"));

  private record Timer(long deadline, long seq, Runnable task) {}

  private record Deferred(GroupLog log, Runnable task) {}

  private record Out(GroupLog from, io.microraft.RaftEndpoint to, RaftMessage message) {}

  /**
   * A leader's requests carry the group's initial members to a peer until its replica was heard from
   * within this long (twice the leader heartbeat period, so an idle group's answers keep it fresh).
   */
  static final long MEMBERS_UNTIL_HEARD_NANOS = TimeUnit.SECONDS.toNanos(2);

  /** What one synced write covers: its batch, how far each group's log and term reach in it, what waits for it. */
  private record Cycle(LogBatch batch, Map<GroupLog, long[]> marks, Map<String, List<Out>> outbox,
      List<Deferred> deferred) {}

  private final Thread thread;
  private final LogDb db;
  private final LogWriter writer;
  private final boolean syncWrites;
  private final boolean align;
  private final Network network;
  private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final PriorityQueue<Timer> timers = new PriorityQueue<>(
      (a, b) -> a.deadline != b.deadline ? Long.compare(a.deadline, b.deadline) : Long.compare(a.seq, b.seq));
  private LogBatch batch;
  private final List<LogBatch> spare = new ArrayList<>();
  private final Set<GroupLog> touched = Collections.newSetFromMap(new IdentityHashMap<>());
  private Map<String, List<Out>> outbox = new HashMap<>();
  private final Map<String, List<Out>> early = new HashMap<>();
  /** What this cycle releases, per peer node: sent as one envelope each at the cycle's end. */
  private final Map<String, List<RaftMsg>> sending = new HashMap<>();
  /** Quiesce notices of this cycle's leaders, per peer node: they go in the same envelope. */
  private final Map<String, List<Quiesce>> notices = new HashMap<>();
  /** Quiesced followers on this stripe by their leader's node ({@link Quiescence}; this thread only). */
  final Map<String, Set<Group>> quietFollowers = new HashMap<>();
  /** Tasks to run after the sync of the batch being filled now. */
  private List<Deferred> afterSync = new ArrayList<>();
  /** Tasks whose sync completed: they run first in the next cycle. */
  private List<Deferred> nextCycle = new ArrayList<>();
  /** The cycle whose write is in flight on the syncer; null when none. */
  private Cycle inFlight;
  private final Thread syncer;
  private final java.util.concurrent.BlockingQueue<Cycle> toSync = new java.util.concurrent.LinkedBlockingQueue<>();
  /** The cycle whose write returned, handed back by the syncer (one write is in flight at a time). */
  private final AtomicReference<Cycle> synced = new AtomicReference<>();
  private volatile boolean failed;
  private volatile boolean running = true;
  private volatile boolean parked;
  /** Parked until the write in flight returns: new tasks wait for it without waking the stripe. */
  private volatile boolean awaitingSync;
  private long timerSeq;

  final AtomicLong cycles = new AtomicLong();
  final AtomicLong syncs = new AtomicLong();
  final AtomicLong envelopes = new AtomicLong();
  final AtomicLong messages = new AtomicLong();
  /** Tasks run (queued ones, timers and those deferred past a sync). */
  final AtomicLong tasksRun = new AtomicLong();
  /** Times another thread woke the parked stripe. */
  final AtomicLong wakeups = new AtomicLong();
  /** Log entries its groups appended (as leader or follower). */
  final AtomicLong appended = new AtomicLong();
  /** How long each synced write of a cycle's batch took (the node's {@code rangekv.raft.log.sync}). */
  final LatencySample syncTimes = new LatencySample();

  Stripe(String name, LogDb db, boolean syncWrites, Network network) {
    this(name, db, db::write, syncWrites, ALIGN_DEFAULT, network);
  }

  Stripe(String name, LogDb db, LogWriter writer, boolean syncWrites, boolean align, Network network) {
    this.db = db;
    this.writer = writer;
    this.syncWrites = syncWrites;
    this.align = align;
    this.network = network;
    this.batch = db.newBatch();
    this.thread = new Thread(this::loop, name);
    this.thread.setDaemon(true);
    this.syncer = new Thread(this::syncLoop, name + "-sync");
    this.syncer.setDaemon(true);
  }

  void start() {
    syncer.start();
    thread.start();
  }

  /** Stops after the current cycle (its batch and the one in flight are written); waits for the threads. */
  void stop() throws InterruptedException {
    running = false;
    LockSupport.unpark(thread);
    thread.join(TimeUnit.SECONDS.toMillis(10));
    syncer.interrupt();
    syncer.join(TimeUnit.SECONDS.toMillis(10));
    batch.close();
    spare.forEach(LogBatch::close);
  }

  /** The syncer: one synced write per handed-over cycle, then the stripe completes it on its own thread. */
  private void syncLoop() {
    while (true) {
      Cycle c;
      try {
        c = toSync.take();
      } catch (InterruptedException e) {
        return;
      }
      try {
        long start = System.nanoTime();
        writer.write(c.batch(), syncWrites);
        syncTimes.record(System.nanoTime() - start);
      } catch (RuntimeException e) {
        // a failed write leaves the groups' durable state unknown: nothing that depends on it may leave
        failed = true;
        log.error("Raft log write failed, the stripe stops releasing messages thread={}", thread.getName(), e);
        LockSupport.unpark(thread);
        return;
      }
      syncs.incrementAndGet();
      synced.set(c);
      if (parked) {
        wakeups.incrementAndGet();
      }
      LockSupport.unpark(thread); // always: the stripe may be about to park for this write
    }
  }

  boolean onStripe() {
    return Thread.currentThread() == thread;
  }

  void submit(Runnable task) {
    tasks.add(task);
    if (parked && !awaitingSync) {
      wakeups.incrementAndGet();
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

  /** Runs {@code task} on this stripe every {@code millis} from now until the stripe stops. */
  void every(long millis, Runnable task) {
    schedule(new Runnable() {
      @Override
      public void run() {
        task.run();
        schedule(this, millis, TimeUnit.MILLISECONDS);
      }
    }, millis, TimeUnit.MILLISECONDS);
  }

  /**
   * Runs {@code task} first thing in the cycle after this cycle's sync, before anything the group does
   * next, once everything its log holds is durable (when the group appended more since, it waits for the
   * write of those appends too).
   */
  void afterThisCycle(GroupLog log, Runnable task) {
    if (onStripe()) {
      afterSync.add(new Deferred(log, task));
    } else {
      submit(() -> afterSync.add(new Deferred(log, task)));
    }
  }

  /** Queues a message to the replica {@code to} for release at the end of this cycle; called by a group's transport. */
  void send(GroupLog from, io.microraft.RaftEndpoint to, RaftMessage message) {
    Map<String, List<Out>> box = message instanceof AppendEntriesRequest ? early : outbox;
    box.computeIfAbsent(NodeEndpoint.idOf(to), n -> new ArrayList<>()).add(new Out(from, to, message));
  }

  /**
   * Queues a leader's quiesce notice for a follower's node, sent at this cycle's end. The notice depends on
   * nothing unsynced: a group quiesces only when all its log is synced and committed.
   */
  void notice(String toNode, Quiesce notice) {
    notices.computeIfAbsent(toNode, n -> new ArrayList<>()).add(notice);
  }

  LogBatch batch() {
    return batch;
  }

  void wrote(GroupLog log) {
    touched.add(log);
  }

  private void loop() {
    while (running) {
      Cycle done = synced.getAndSet(null);
      if (done != null) {
        completed(done);
      }
      runDeferred();
      runDueTimers();
      // aligned with a write in flight, only a due timer gets here: the queued tasks wait for the write,
      // so that they run in one cycle after it and no group appends between a write and its return
      if (!awaitsWrite()) {
        Runnable task;
        int n = 0;
        while (n < MAX_TASKS_PER_CYCLE && (task = tasks.poll()) != null) {
          run(task);
          n++;
        }
      }
      endCycle();
      sendAll();
      park();
    }
    lastWrite();
  }

  /** At stop: waits for the write in flight, then writes what the batch holds (a clean stop loses nothing). */
  private void lastWrite() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (inFlight != null && !failed && System.nanoTime() < deadline) {
      Cycle done = synced.getAndSet(null);
      Runnable task = done == null ? tasks.poll() : null;
      if (done != null) {
        completed(done);
        sendAll();
      } else if (task != null) {
        run(task);
      } else {
        LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(1));
      }
    }
    if (inFlight == null && !failed && batch.count() > 0) {
      try {
        writer.write(batch, syncWrites);
      } catch (RuntimeException e) {
        log.warn("last Raft log write failed thread={}", thread.getName(), e);
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
      if (d.log().appendedIndex() > d.log().durableIndex()) {
        // the group appended after the write that returned (its entries are in the batch being filled):
        // MicroRaft's flush task takes the log's last index as flushed, so it waits for that batch's write
        afterSync.add(d);
        wrote(d.log());
      } else {
        run(d.task());
      }
    }
  }

  /** Aligned and a write is in flight: the stripe runs nothing queued until it returned. */
  private boolean awaitsWrite() {
    return align && inFlight != null && !failed;
  }

  private void runDueTimers() {
    long now = System.nanoTime();
    while (!timers.isEmpty() && timers.peek().deadline <= now) {
      run(timers.poll().task);
    }
  }

  private void run(Runnable task) {
    tasksRun.incrementAndGet();
    try {
      task.run();
    } catch (RuntimeException e) {
      log.error("stripe task failed thread={}", thread.getName(), e);
    }
  }

  private void endCycle() {
    cycles.incrementAndGet();
    releaseEarly();
    if (inFlight != null || failed) {
      return; // the next batch goes when the write in flight returns
    }
    if (batch.count() == 0 && touched.isEmpty() && afterSync.isEmpty()) {
      release(outbox); // nothing written since the last sync: what waits depends on synced state only
      return;
    }
    Map<GroupLog, long[]> marks = new IdentityHashMap<>();
    for (GroupLog g : touched) {
      marks.put(g, new long[] {g.appendedIndex(), g.appendedTerm()});
    }
    touched.clear();
    Cycle c = new Cycle(batch, marks, outbox, afterSync);
    batch = spare.isEmpty() ? db.newBatch() : spare.remove(spare.size() - 1);
    outbox = new HashMap<>();
    afterSync = new ArrayList<>();
    inFlight = c;
    toSync.add(c);
  }

  /** A cycle's write returned: its groups' appends are durable, its messages leave, its deferred tasks run now. */
  private void completed(Cycle c) {
    c.marks().forEach((g, m) -> g.markDurable(m[0], (int) m[1]));
    release(c.outbox());
    nextCycle.addAll(c.deferred());
    c.batch().clear();
    spare.add(c.batch());
    inFlight = null;
  }

  /**
   * A leader's append requests of this cycle, before the sync: those whose term is durable already leave
   * now; one of a term not yet synced (a new leader's first cycle) waits for the sync with the rest.
   */
  private void releaseEarly() {
    if (early.isEmpty()) {
      return;
    }
    long now = System.nanoTime();
    for (Map.Entry<String, List<Out>> e : early.entrySet()) {
      List<RaftMsg> ready = new ArrayList<>(e.getValue().size());
      for (Out o : e.getValue()) {
        if (o.message().getTerm() <= o.from().durableTerm()) {
          ready.add(RaftCodec.encode(o.message(), o.to(), o.from().initialMembersFor(o.to(), now, MEMBERS_UNTIL_HEARD_NANOS)));
        } else {
          outbox.computeIfAbsent(e.getKey(), n -> new ArrayList<>()).add(o);
        }
      }
      if (!ready.isEmpty()) {
        sending.computeIfAbsent(e.getKey(), n -> new ArrayList<>()).addAll(ready);
      }
    }
    early.clear();
  }

  private void release(Map<String, List<Out>> box) {
    if (box.isEmpty()) {
      return;
    }
    long now = System.nanoTime();
    for (Map.Entry<String, List<Out>> e : box.entrySet()) {
      List<RaftMsg> out = sending.computeIfAbsent(e.getKey(), n -> new ArrayList<>());
      for (Out o : e.getValue()) {
        out.add(RaftCodec.encode(o.message(), o.to(), o.from().initialMembersFor(o.to(), now, MEMBERS_UNTIL_HEARD_NANOS)));
      }
    }
    box.clear();
  }

  /** Sends what this cycle released: one envelope per peer node. */
  private void sendAll() {
    if (sending.isEmpty() && notices.isEmpty()) {
      return;
    }
    for (Map.Entry<String, List<Quiesce>> e : notices.entrySet()) {
      sending.computeIfAbsent(e.getKey(), n -> new ArrayList<>());
    }
    for (Map.Entry<String, List<RaftMsg>> e : sending.entrySet()) {
      envelopes.incrementAndGet();
      messages.addAndGet(e.getValue().size());
      List<Quiesce> quiesced = notices.getOrDefault(e.getKey(), List.of());
      try {
        if (quiesced.isEmpty()) {
          network.deliver(e.getKey(), e.getValue());
        } else {
          network.deliver(e.getKey(), e.getValue(), quiesced);
        }
      } catch (RuntimeException ex) {
        log.debug("envelope not delivered toNode={} error={}", e.getKey(), ex.toString());
      }
    }
    sending.clear();
    notices.clear();
  }

  /**
   * Waits for work. With a write in flight (aligned) it waits for that write's return, a due timer or stop,
   * however many tasks queue meanwhile; otherwise for a task, a returned write or a due timer.
   */
  private void park() {
    boolean aligned = awaitsWrite();
    if (!aligned && (!tasks.isEmpty() || !nextCycle.isEmpty())) {
      return;
    }
    awaitingSync = aligned;
    parked = true;
    if (running && synced.get() == null && (aligned || tasks.isEmpty())) {
      long wait = timers.isEmpty() ? TimeUnit.MILLISECONDS.toNanos(100) : timers.peek().deadline - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(this, wait);
      }
    }
    parked = false;
    awaitingSync = false;
  }
}
