package dev.rangekv.server.rpc;

import dev.rangekv.core.batch.GroupCommitQueue;
import dev.rangekv.proto.BatchRequest;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.ClientWrites;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.server.replica.RangeKvException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The node's per-range proposal buffers: a client write that reaches a range while its previous
 * proposals are in flight waits and goes into the range's next Raft entry together with the others
 * (group commit; an idle range proposes at once). Each write is admitted on its own before it waits
 * (invariant 4), checked and deduplicated on its own at apply, and gets its own result. No thread
 * waits: proposals chain on the completion of the previous ones. Thread-safe.
 *
 * <p>A buffer is a few objects per range this node ever led; it is kept for the node's life.
 */
public final class ProposalBuffers {
  private final RaftGateway gateway;
  private final Limits limits;
  private final ConcurrentMap<Long, Buffer> buffers = new ConcurrentHashMap<>();

  /**
   * How entries are grouped.
   *
   * @param maxInFlight proposals of one range in flight at once; writes arriving beyond wait
   * @param maxWrites writes in one entry
   * @param maxBytes bytes of writes in one entry (a larger single write goes alone)
   */
  public record Limits(int maxInFlight, int maxWrites, long maxBytes) {
    /**
     * One proposal in flight per range: every write that arrives meanwhile joins the next entry. On this
     * 2-core machine, with the CPU the limit, two in flight split 32 writers into entries half as large
     * and cost ~20% more machine CPU per write (per-entry costs on all three replicas: the appendEntries
     * round trips, the log worker's write and fsync, Ratis' retry cache and apply bookkeeping); see
     * BENCHMARKS.md "CPU per write".
     */
    public static Limits defaults() {
      return new Limits(1, 256, 1 << 20);
    }

    /** System property prefix that overrides a default for experiments (BENCHMARKS.md): {@code rangekv.proposals.maxInFlight=1}. */
    public static final String OVERRIDE_PREFIX = "rangekv.proposals.";

    /** The defaults with {@code -Drangekv.proposals.<maxInFlight|maxWrites|maxBytes>=N} overrides from {@code system}. */
    public static Limits from(java.util.Properties system) {
      Limits d = defaults();
      return new Limits(
          Integer.parseInt(system.getProperty(OVERRIDE_PREFIX + "maxInFlight", String.valueOf(d.maxInFlight()))),
          Integer.parseInt(system.getProperty(OVERRIDE_PREFIX + "maxWrites", String.valueOf(d.maxWrites()))),
          Long.parseLong(system.getProperty(OVERRIDE_PREFIX + "maxBytes", String.valueOf(d.maxBytes()))));
    }
  }

  public ProposalBuffers(RaftGateway gateway, Limits limits) {
    this.gateway = gateway;
    this.limits = limits;
  }

  /** True when no write of {@code rangeId} waits or is in flight here (a dormancy precondition). */
  public boolean idle(long rangeId) {
    Buffer buffer = buffers.get(rangeId);
    if (buffer == null) {
      return true;
    }
    synchronized (buffer) {
      return buffer.queue.isIdle();
    }
  }

  /** A client write waiting for its entry. */
  private record Pending(BatchRequest write, CompletableFuture<CommandResult> result) {}

  /** The group-commit queue of one range. */
  private final class Buffer {
    final long rangeId;
    final GroupCommitQueue<Pending> queue =
        new GroupCommitQueue<>(limits.maxInFlight(), limits.maxWrites(), limits.maxBytes(),
            p -> p.write().getSerializedSize());

    Buffer(long rangeId) {
      this.rangeId = rangeId;
    }
  }

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
    Buffer buffer = buffers.computeIfAbsent(rangeId, Buffer::new);
    List<Pending> batch;
    synchronized (buffer) {
      batch = buffer.queue.offer(pending);
    }
    if (!batch.isEmpty()) {
      propose(buffer, batch);
    }
    return pending.result();
  }

  private void propose(Buffer buffer, List<Pending> batch) {
    ClientWrites.Builder writes = ClientWrites.newBuilder();
    for (Pending p : batch) {
      writes.addWrites(p.write());
    }
    gateway.propose(buffer.rangeId, RangeCommand.newBuilder().setWrites(writes).build())
        .whenComplete((result, error) -> {
          List<Pending> next;
          synchronized (buffer) {
            next = buffer.queue.completed();
          }
          if (!next.isEmpty()) {
            propose(buffer, next); // before the replies: the range's log keeps busy
          }
          reply(batch, result, error);
        });
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
