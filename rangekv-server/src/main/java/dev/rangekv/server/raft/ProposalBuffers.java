package dev.rangekv.server.raft;

import dev.rangekv.core.batch.NodeGroupCommit;
import dev.rangekv.proto.BatchRequest;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.ClientWrites;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.server.replica.RangeKvException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The node's per-range proposal buffers: a client write that reaches a range while its previous
 * proposals are in flight waits and goes into the range's next Raft entry together with the others
 * (group commit; an idle range proposes at once). Each write is admitted on its own before it waits
 * (invariant 4), checked and deduplicated on its own at apply, and gets its own result. No thread
 * waits: proposals chain on the completion of the previous ones. Node-wide, at most {@link
 * Limits#maxNodeInFlight} proposals are out at once ({@link NodeGroupCommit}). Thread-safe.
 *
 * <p>A range's buffer lives while it has writes waiting or in flight.
 */
public final class ProposalBuffers {
  private final RaftGateway gateway;
  /** Runs the scheduler's ticks: a queued range waits at most {@link Limits#stallMillis} for a slot. */
  private final ScheduledExecutorService timer;
  /** The clock of the stall deadlines: {@code System::nanoTime} on a node, the timer's clock in tests. */
  private final LongSupplier nanoTime;
  private final NodeGroupCommit<Long, Pending> commits;
  private boolean tickScheduled;

  /**
   * How entries are grouped.
   *
   * @param maxInFlight proposals of one range in flight at once; writes arriving beyond wait
   * @param maxWrites writes in one entry
   * @param maxBytes bytes of writes in one entry (a larger single write goes alone)
   * @param maxNodeInFlight proposals of all ranges of this node in flight at once; a range that could
   *     propose beyond waits for a slot, collecting writes meanwhile
   * @param stallMillis how long a proposal in flight counts against {@code maxNodeInFlight}
   */
  public record Limits(int maxInFlight, int maxWrites, long maxBytes, int maxNodeInFlight, long stallMillis) {
    /**
     * One proposal in flight per range: every write that arrives meanwhile joins the next entry. On this
     * 2-core machine, with the CPU the limit, two in flight split 32 writers into entries half as large
     * and cost ~20% more machine CPU per write (per-entry costs on all three replicas: the appendEntries
     * round trips, the log worker's write and fsync, the engine's retry cache and apply bookkeeping); see
     * BENCHMARKS.md "CPU per write". No node-wide bound by default ({@code RaftTuning#nodeEntriesInFlight},
     * {@code rangekv start --node-entries-in-flight N}): warm, on this 2-core machine, a bound of 1 gave 8
     * busy ranges of one leader ~20% more writes/s (fewer, larger entries), 2 about 55%, but they stayed
     * at 0.4-0.5x of one range, since a write still waits for its own range's turn; and on a node with cores to spare it
     * would make the ranges wait for each other (BENCHMARKS.md, "Cross-range group commit").
     * {@code -Drangekv.proposals.maxNodeInFlight=N} overrides it for experiments. A proposal out for
     * 100 ms stops counting against the bound, so a range without its quorum cannot hold up the node's
     * other ranges for longer.
     */
    public static Limits defaults() {
      return new Limits(1, 256, 1 << 20, Integer.MAX_VALUE, 100);
    }

    /** System property prefix that overrides a default for experiments (BENCHMARKS.md): {@code rangekv.proposals.maxInFlight=1}. */
    public static final String OVERRIDE_PREFIX = "rangekv.proposals.";

    /**
     * A node's limits: the defaults with its {@code nodeEntriesInFlight} setting (0: no node bound;
     * {@code RaftTuning}, {@code rangekv start --node-entries-in-flight}), then {@code system}'s
     * {@code -Drangekv.proposals.<maxInFlight|maxWrites|maxBytes|maxNodeInFlight|stallMillis>=N} overrides.
     */
    public static Limits forNode(int nodeEntriesInFlight, java.util.Properties system) {
      if (nodeEntriesInFlight < 0) {
        throw new IllegalArgumentException("nodeEntriesInFlight must not be negative: " + nodeEntriesInFlight);
      }
      Limits d = defaults();
      return (nodeEntriesInFlight == 0 ? d : d.withMaxNodeInFlight(nodeEntriesInFlight)).overriddenBy(system);
    }

    /** These limits with at most {@code n} proposals of all ranges of the node in flight. */
    public Limits withMaxNodeInFlight(int n) {
      return new Limits(maxInFlight, maxWrites, maxBytes, n, stallMillis);
    }

    private Limits overriddenBy(java.util.Properties system) {
      return new Limits(
          Integer.parseInt(system.getProperty(OVERRIDE_PREFIX + "maxInFlight", String.valueOf(maxInFlight))),
          Integer.parseInt(system.getProperty(OVERRIDE_PREFIX + "maxWrites", String.valueOf(maxWrites))),
          Long.parseLong(system.getProperty(OVERRIDE_PREFIX + "maxBytes", String.valueOf(maxBytes))),
          Integer.parseInt(system.getProperty(OVERRIDE_PREFIX + "maxNodeInFlight", String.valueOf(maxNodeInFlight))),
          Long.parseLong(system.getProperty(OVERRIDE_PREFIX + "stallMillis", String.valueOf(stallMillis))));
    }
  }

  /** {@code timer} runs the short ticks that release ranges queued behind stalled proposals. */
  public ProposalBuffers(RaftGateway gateway, Limits limits, ScheduledExecutorService timer) {
    this(gateway, limits, timer, System::nanoTime);
  }

  /** As above, with the stall deadlines kept on {@code nanoTime} (the clock {@code timer} runs on). */
  public ProposalBuffers(RaftGateway gateway, Limits limits, ScheduledExecutorService timer, LongSupplier nanoTime) {
    this.gateway = gateway;
    this.timer = timer;
    this.nanoTime = nanoTime;
    this.commits = new NodeGroupCommit<>(limits.maxNodeInFlight(), TimeUnit.MILLISECONDS.toNanos(limits.stallMillis()),
        limits.maxInFlight(), limits.maxWrites(), limits.maxBytes(), p -> p.write().getSerializedSize());
  }

  /** True when no write of {@code rangeId} waits or is in flight here (a dormancy precondition). */
  public boolean idle(long rangeId) {
    synchronized (commits) {
      return commits.idle(rangeId);
    }
  }

  /** A client write waiting for its entry. */
  private record Pending(BatchRequest write, CompletableFuture<CommandResult> result) {}

  /**
   * Admits {@code write} (a client write with its header and write id) and proposes it, alone or with
   * others; completes with its own applied result, or fails with a {@link RangeKvException}.
   */
  public CompletableFuture<CommandResult> write(BatchRequest write) {
    Optional<RangeKvError> refused = gateway.admit(write);
    if (refused.isPresent()) {
      return CompletableFuture.failedFuture(new RangeKvException(refused.get()));
    }
    long rangeId = write.getHeader().getRangeId();
    Pending pending = new Pending(write, new CompletableFuture<>());
    List<NodeGroupCommit.Batch<Long, Pending>> now;
    synchronized (commits) {
      now = commits.offer(rangeId, pending, nanoTime.getAsLong());
      scheduleTick();
    }
    now.forEach(this::propose);
    return pending.result();
  }

  private void propose(NodeGroupCommit.Batch<Long, Pending> batch) {
    ClientWrites.Builder writes = ClientWrites.newBuilder();
    for (Pending p : batch.items()) {
      writes.addWrites(p.write());
    }
    CompletableFuture<CommandResult> proposed;
    try {
      proposed = gateway.propose(batch.lane(), RangeCommand.newBuilder().setWrites(writes).build());
    } catch (RuntimeException e) { // the slots must be released whatever happens, or the range stalls for good
      proposed = CompletableFuture.failedFuture(new RangeKvException(RangeKvErrors.unavailable(
          "proposal failed: " + e, false))); // where it failed is not known: the outcome is not either
    }
    proposed.whenComplete((result, error) -> {
          List<NodeGroupCommit.Batch<Long, Pending>> next;
          synchronized (commits) {
            next = commits.completed(batch.lane(), nanoTime.getAsLong());
            scheduleTick();
          }
          next.forEach(this::propose); // before the replies: the logs keep busy
          reply(batch.items(), result, error);
        });
  }

  /** While ranges wait for a slot, a tick at the oldest proposal's stall deadline releases them if it stalls. */
  private void scheduleTick() {
    OptionalLong at = commits.nextTick();
    if (at.isEmpty() || tickScheduled) {
      return;
    }
    tickScheduled = true;
    long delay = Math.max(0, at.getAsLong() - nanoTime.getAsLong());
    try {
      timer.schedule(this::tick, delay, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) { // the node is closing: its proposals fail anyway
      tickScheduled = false;
    }
  }

  private void tick() {
    List<NodeGroupCommit.Batch<Long, Pending>> now;
    synchronized (commits) {
      tickScheduled = false;
      now = commits.tick(nanoTime.getAsLong());
      scheduleTick();
    }
    now.forEach(this::propose);
  }

  private static void reply(List<Pending> batch, CommandResult result, Throwable error) {
    if (error != null) {
      batch.forEach(p -> p.result().completeExceptionally(error));
      return;
    }
    if (result.hasError()) { // the whole entry was refused (a frozen range, an undecodable entry)
      batch.forEach(p -> p.result().completeExceptionally(new RangeKvException(result.getError())));
      return;
    }
    if (!result.hasWrites() || result.getWrites().getResultsCount() != batch.size()) {
      RangeKvException e = new RangeKvException(RangeKvErrors.unavailable(
          "grouped entry answered " + result.getResultCase() + " for " + batch.size() + " writes", false));
      batch.forEach(p -> p.result().completeExceptionally(e));
      return;
    }
    for (int i = 0; i < batch.size(); i++) {
      CommandResult r = result.getWrites().getResults(i);
      if (r.hasError()) {
        batch.get(i).result().completeExceptionally(new RangeKvException(r.getError()));
      } else {
        batch.get(i).result().complete(r);
      }
    }
  }
}
