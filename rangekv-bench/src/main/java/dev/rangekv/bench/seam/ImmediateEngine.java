package dev.rangekv.bench.seam;

import dev.rangekv.proto.BatchResponse;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.QueryResult;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.proto.replica.RangeQuery;
import dev.rangekv.proto.replica.WriteResults;
import dev.rangekv.server.consensus.GroupEvents;
import dev.rangekv.server.consensus.GroupStatus;
import dev.rangekv.server.consensus.Leadership;
import dev.rangekv.server.consensus.Member;
import dev.rangekv.server.consensus.RangeConsensus;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A consensus engine that leads one fixed range and completes every proposal at once, before {@code
 * propose} returns, with one succeeded result per client write of the command: what is left of a write's
 * path once replication, the log and the store are taken away, so that the layers above the engine can be
 * measured alone. It runs no group lifecycle, reads or membership changes (they throw). Thread-safe.
 */
final class ImmediateEngine implements RangeConsensus {
  private static final CommandResult SUCCEEDED =
      CommandResult.newBuilder().setBatch(BatchResponse.newBuilder().setSucceeded(true).setFailedCheckIndex(-1))
          .build();

  private final long rangeId;

  ImmediateEngine(long rangeId) {
    this.rangeId = rangeId;
  }

  @Override
  public String selfId() {
    return "n1";
  }

  @Override
  public Set<Long> openRanges() {
    return Set.of(rangeId);
  }

  @Override
  public boolean create(long id, List<Member> members) {
    throw unsupported();
  }

  @Override
  public void createEmpty(long id) {
    throw unsupported();
  }

  @Override
  public void close(long id) {
    throw unsupported();
  }

  @Override
  public boolean reopen(long id, List<Member> members) {
    throw unsupported();
  }

  @Override
  public void destroy(long id) {
    throw unsupported();
  }

  @Override
  public Optional<Leadership> leadership(long id) {
    return id == rangeId ? Optional.of(new Leadership(true, true, selfId())) : Optional.empty();
  }

  @Override
  public Optional<GroupStatus> status(long id) {
    throw unsupported();
  }

  @Override
  public CompletableFuture<CommandResult> propose(long id, RangeCommand cmd) {
    if (id != rangeId) {
      return CompletableFuture.failedFuture(new IllegalArgumentException("no group for range " + id));
    }
    WriteResults.Builder results = WriteResults.newBuilder();
    for (int i = 0; i < cmd.getWrites().getWritesCount(); i++) {
      results.addResults(SUCCEEDED);
    }
    return CompletableFuture.completedFuture(CommandResult.newBuilder().setWrites(results).build());
  }

  @Override
  public CompletableFuture<QueryResult> read(long id, RangeQuery query) {
    throw unsupported();
  }

  @Override
  public CompletableFuture<Void> changeMembers(long id, List<Member> current, List<Member> next, Duration timeout) {
    throw unsupported();
  }

  @Override
  public CompletableFuture<Boolean> transferLeadership(long id, String target, Duration timeout) {
    throw unsupported();
  }

  @Override
  public boolean campaign(long id) {
    throw unsupported();
  }

  @Override
  public OptionalLong logTermAt(long id, long index) {
    throw unsupported();
  }

  @Override
  public void addListener(GroupEvents listener) {
    throw unsupported();
  }

  private static UnsupportedOperationException unsupported() {
    return new UnsupportedOperationException("the benchmark's engine only proposes");
  }
}
