package dev.rangekv.server.raft;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.QueryResult;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.proto.replica.RangeQuery;
import dev.rangekv.server.replica.ProtoMessage;
import dev.rangekv.server.replica.RangeGroups;
import dev.rangekv.server.replica.RangeKvException;
import dev.rangekv.server.replica.RangeStateMachine;
import dev.rangekv.server.replica.ReplicaDirectory;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientAsynchronousProtocol;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.exceptions.GroupMismatchException;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.RaftException;
import org.apache.ratis.protocol.exceptions.ResourceUnavailableException;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.server.RaftServer;

/**
 * Submits range commands and queries to the local Ratis division of a range, only when it leads
 * (followers refuse with a leader hint), after the leader's admission check; maps every outcome to a
 * result or a typed {@link RangeKvException}. Failed futures always carry a {@link RangeKvException}.
 */
public final class RaftGateway {
  private final RaftServer server;
  private final ReplicaDirectory directory;
  private final Duration timeout;
  private final ClientId nodeClientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();
  // rangeId -> the node this node is handing leadership to: while Ratis refuses writes as "stepping
  // down" and knows no other leader yet, the refusal names the transfer's target so clients go there
  private final Map<Long, String> transfers = new ConcurrentHashMap<>();

  public RaftGateway(RaftServer server, ReplicaDirectory directory, Duration timeout) {
    this.server = server;
    this.directory = directory;
    this.timeout = timeout;
  }

  /**
   * A node-originated command (a split, a freeze, a replica change) under the node's own client id,
   * after the leader's admission check; fails with the refusal an applied command answered.
   */
  public CompletableFuture<CommandResult> write(RangeCommand cmd) {
    long rangeId = cmd.getHeader().getRangeId();
    Optional<RangeKvError> refused = leaderOrRefusal(rangeId);
    RangeStateMachine replica = directory.replica(rangeId).orElse(null);
    if (refused.isEmpty() && replica != null) {
      refused = replica.admit(cmd);
    }
    if (refused.isPresent()) {
      return CompletableFuture.failedFuture(new RangeKvException(refused.get()));
    }
    return propose(rangeId, cmd).thenApply(result -> {
      if (result.hasError()) {
        throw new RangeKvException(result.getError());
      }
      return result;
    });
  }

  /** Why a client write for {@code write}'s range must not join a proposal here, if it must not. */
  public Optional<RangeKvError> admit(dev.rangekv.proto.BatchRequest write) {
    long rangeId = write.getHeader().getRangeId();
    Optional<RangeKvError> refused = leaderOrRefusal(rangeId);
    if (refused.isPresent()) {
      return refused;
    }
    return directory.replica(rangeId).map(r -> r.admit(write)).orElseGet(() -> leaderOrRefusal(rangeId));
  }

  /**
   * Proposes {@code cmd} to the range's group as it is (no admission check): the applied result, which
   * may be a refusal. Fails with a {@link RangeKvException} when the proposal did not complete.
   */
  public CompletableFuture<CommandResult> propose(long rangeId, RangeCommand cmd) {
    RaftClientRequest request = request(rangeId, nodeClientId, callIds.incrementAndGet(), ProtoMessage.of(cmd),
        RaftClientRequest.writeRequestType());
    return submit(request, false).thenApply(reply -> reply.getMessage() instanceof ProtoMessage<?> pm
        && pm.value() instanceof CommandResult r
        ? r
        : parse(() -> CommandResult.parseFrom(reply.getMessage().getContent().asReadOnlyByteBuffer())));
  }

  /** A linearizable read: Ratis confirms leadership (lease or ReadIndex) before the query runs. */
  public CompletableFuture<QueryResult> read(RangeQuery query) {
    long rangeId = query.getHeader().getRangeId();
    Optional<RangeKvError> refused = leaderOrRefusal(rangeId);
    if (refused.isPresent()) {
      return CompletableFuture.failedFuture(new RangeKvException(refused.get()));
    }
    RaftClientRequest request =
        request(rangeId, nodeClientId, callIds.incrementAndGet(), ProtoMessage.of(query), RaftClientRequest.readRequestType());
    return submit(request, true).thenApply(reply -> {
      QueryResult result = reply.getMessage() instanceof ProtoMessage<?> pm && pm.value() instanceof QueryResult q
          ? q
          : parse(() -> QueryResult.parseFrom(reply.getMessage().getContent().asReadOnlyByteBuffer()));
      if (result.hasError()) {
        throw new RangeKvException(result.getError());
      }
      return result;
    });
  }

  /**
   * Records that this node is transferring the leadership of {@code rangeId} to {@code target} (until
   * {@link #transferEnded}): refusals meanwhile carry the target as the leader hint.
   */
  public void transferStarted(long rangeId, String target) {
    transfers.put(rangeId, target);
  }

  /** True while this node hands the leadership of {@code rangeId} to another node. */
  public boolean transferring(long rangeId) {
    return transfers.containsKey(rangeId);
  }

  /** Ends what {@link #transferStarted} recorded. */
  public void transferEnded(long rangeId) {
    transfers.remove(rangeId);
  }

  private volatile java.util.function.LongPredicate wakeIfDormant = rangeId -> false;

  /**
   * How to start waking a range this node holds dormant: returns true when it was dormant here and a
   * wake started. Requests that reach a dormant range without waiting for its wake then get a
   * retryable UNAVAILABLE instead of RANGE_NOT_FOUND.
   */
  public void onDormant(java.util.function.LongPredicate wakeIfDormant) {
    this.wakeIfDormant = wakeIfDormant;
  }

  /** Empty when this node holds {@code rangeId} and its division believes it leads. */
  public Optional<RangeKvError> leaderOrRefusal(long rangeId) {
    if (directory.replica(rangeId).isEmpty() && wakeIfDormant.test(rangeId)) {
      return Optional.of(RangeKvErrors.unavailable("range " + rangeId + " is dormant and waking", true));
    }
    if (directory.replica(rangeId).isEmpty()) {
      List<dev.rangekv.proto.RangeDescriptorProto> current = directory.successorsOf(rangeId);
      return Optional.of(current.isEmpty()
          ? RangeKvErrors.rangeNotFound(rangeId)
          : RangeKvErrors.rangeMoved(current, "range " + rangeId + " no longer lives on this node"));
    }
    RaftServer.Division division;
    try {
      division = server.getDivision(RangeGroups.groupId(rangeId));
    } catch (IOException e) {
      return Optional.of(RangeKvErrors.rangeNotFound(rangeId));
    }
    if (division.getInfo().isLeader()) {
      return Optional.empty();
    }
    String leader = division.getInfo().getLeaderId() == null ? "" : division.getInfo().getLeaderId().toString();
    return Optional.of(notLeader(rangeId, leader, true));
  }

  private RaftClientRequest request(long rangeId, ClientId clientId, long callId, Message body, RaftClientRequest.Type type) {
    RaftGroupId groupId = RangeGroups.groupId(rangeId);
    return RaftClientRequest.newBuilder()
        .setClientId(clientId)
        .setServerId(server.getId())
        .setGroupId(groupId)
        .setCallId(callId)
        .setMessage(body)
        .setType(type)
        .build();
  }

  private CompletableFuture<RaftClientReply> submit(RaftClientRequest request, boolean readOnly) {
    long rangeId = RangeGroups.rangeId(request.getRaftGroupId()).orElse(-1);
    CompletableFuture<RaftClientReply> future;
    try {
      // straight to the range's division: the server-level call hops to Ratis' client pool and parks
      // the calling thread on a join until the hop returns (a thread switch and a blocked thread per call)
      future = server.getDivision(request.getRaftGroupId()) instanceof RaftClientAsynchronousProtocol division
          ? division.submitClientRequestAsync(request)
          : server.submitClientRequestAsync(request);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(new RangeKvException(failure(e, rangeId, true)));
    }
    return future
        .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .handle((reply, error) -> {
          if (error != null) {
            throw new RangeKvException(failure(error, rangeId, readOnly));
          }
          if (!reply.isSuccess()) {
            throw new RangeKvException(failure(reply.getException(), rangeId, readOnly));
          }
          return reply;
        });
  }

  /** Maps a Ratis failure; {@code safe} when the request could not have been applied either way. */
  private RangeKvError failure(Throwable error, long rangeId, boolean safe) {
    Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    if (e instanceof StateMachineException sme && sme.getCause() instanceof RangeKvException rke) {
      return rke.error();
    }
    if (e instanceof NotLeaderException nle) {
      RaftPeer hint = nle.getSuggestedLeader();
      String leader = hint == null ? "" : hint.getId().toString();
      // a leader stepping down fails pending requests with NotLeader: they may still commit
      return notLeader(rangeId, leader, safe);
    }
    if (e instanceof GroupMismatchException) {
      return RangeKvErrors.rangeNotFound(rangeId);
    }
    if (e instanceof LeaderSteppingDownException && transfers.containsKey(rangeId)) {
      // refused before it was appended: send the caller to the node taking over
      return notLeader(rangeId, "", true);
    }
    if (e instanceof LeaderNotReadyException
        || e instanceof LeaderSteppingDownException
        || e instanceof ResourceUnavailableException) {
      return RangeKvErrors.unavailable(e.getClass().getSimpleName() + ": " + e.getMessage(), true);
    }
    if (e instanceof TimeoutException) {
      return RangeKvErrors.unavailable("timed out after " + timeout.toMillis() + " ms", safe);
    }
    if (e instanceof RaftException || e instanceof IOException) {
      return RangeKvErrors.unavailable(e.getClass().getSimpleName() + ": " + e.getMessage(), safe);
    }
    return RangeKvErrors.unavailable("unexpected " + e, safe);
  }

  /** NOT_LEADER naming {@code leader}, or the target of a transfer in progress when no leader is known. */
  private RangeKvError notLeader(long rangeId, String leader, boolean safe) {
    String hint = leader.isEmpty() || leader.equals(server.getId().toString())
        ? transfers.getOrDefault(rangeId, leader) : leader;
    return RangeKvErrors.notLeader(rangeId, hint, hint.isEmpty() ? "" : directory.addressOf(hint), safe);
  }

  private interface Parser<T> {
    T parse() throws InvalidProtocolBufferException;
  }

  private static <T> T parse(Parser<T> parser) {
    try {
      return parser.parse();
    } catch (InvalidProtocolBufferException e) {
      throw new RangeKvException(RangeKvErrors.unavailable("undecodable reply: " + e.getMessage(), false));
    }
  }
}
