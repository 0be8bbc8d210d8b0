package dev.rangekv.server.ratis;

import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.QueryResult;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.proto.replica.RangeQuery;
import dev.rangekv.server.consensus.ConsensusException;
import dev.rangekv.server.consensus.ConsensusException.Kind;
import dev.rangekv.server.consensus.GroupEventHub;
import dev.rangekv.server.consensus.GroupEvents;
import dev.rangekv.server.consensus.GroupStatus;
import dev.rangekv.server.consensus.Leadership;
import dev.rangekv.server.consensus.Member;
import dev.rangekv.server.consensus.RangeConsensus;
import dev.rangekv.server.replica.RangeKvException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientAsynchronousProtocol;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.protocol.exceptions.GroupMismatchException;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.RaftException;
import org.apache.ratis.protocol.exceptions.ResourceUnavailableException;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consensus seam on Apache Ratis: one {@link RaftServer} hosting one Ratis group per range replica
 * (group id {@link RangeGroups#groupId}), the group lifecycle on its group management calls and the
 * storage layout of {@link ParkedGroups}, proposals and reads straight to a range's division, and every
 * Ratis failure mapped to a {@link ConsensusException}. Thread-safe.
 */
public final class RatisRangeConsensus implements RangeConsensus {
  private static final Logger log = LoggerFactory.getLogger(RatisRangeConsensus.class);

  private final RaftServer server;
  private final ParkedGroups parked;
  private final Duration requestTimeout;
  /** Runs the short continuations of membership and leadership calls (never Ratis' own threads). */
  private final Executor executor;
  /** Fed by each group's {@link RangeStateMachine}. */
  private final GroupEventHub events;
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();

  public RatisRangeConsensus(RaftServer server, ParkedGroups parked, Duration requestTimeout, Executor executor,
      GroupEventHub events) {
    this.server = server;
    this.parked = parked;
    this.requestTimeout = requestTimeout;
    this.executor = executor;
    this.events = events;
  }

  /** The Ratis server underneath (for the node's wiring and for tests that look inside a division). */
  public RaftServer server() {
    return server;
  }

  @Override
  public String selfId() {
    return server.getId().toString();
  }

  @Override
  public Set<Long> openRanges() {
    Set<Long> out = new HashSet<>();
    for (RaftGroupId g : server.getGroupIds()) {
      RangeGroups.rangeId(g).ifPresent(out::add);
    }
    return out;
  }

  @Override
  public boolean isOpen(long rangeId) {
    RaftGroupId id = RangeGroups.groupId(rangeId);
    for (RaftGroupId g : server.getGroupIds()) {
      if (g.equals(id)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public boolean create(long rangeId, List<Member> members) throws IOException {
    return parked.add(rangeId, members, true);
  }

  @Override
  public void createEmpty(long rangeId) throws IOException {
    parked.addEmpty(rangeId);
  }

  @Override
  public void close(long rangeId) throws IOException {
    parked.park(rangeId);
  }

  @Override
  public boolean reopen(long rangeId, List<Member> members) throws IOException {
    return parked.unpark(rangeId, members);
  }

  @Override
  public void destroy(long rangeId) throws IOException {
    parked.remove(rangeId);
  }

  private Optional<RaftServer.Division> division(long rangeId) {
    try {
      return Optional.of(server.getDivision(RangeGroups.groupId(rangeId)));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  @Override
  public Optional<Leadership> leadership(long rangeId) {
    return division(rangeId).map(d -> leadership(d.getInfo()));
  }

  private static Leadership leadership(DivisionInfo info) {
    boolean leader = info.isLeader();
    RaftPeerId id = info.getLeaderId();
    return new Leadership(leader, leader && info.isLeaderReady(), id == null ? "" : id.toString());
  }

  @Override
  public OptionalLong currentTerm(long rangeId) {
    return division(rangeId).map(d -> OptionalLong.of(d.getInfo().getCurrentTerm())).orElse(OptionalLong.empty());
  }

  @Override
  public Optional<GroupStatus> status(long rangeId) {
    return division(rangeId).map(RatisRangeConsensus::status);
  }

  private static GroupStatus status(RaftServer.Division d) {
    DivisionInfo info = d.getInfo();
    RaftConfiguration conf = d.getRaftConf();
    boolean closed = info.getLifeCycleState().isClosingOrClosed();
    // a closed division's log refuses every read
    TermIndex last = closed ? null : d.getRaftLog().getLastEntryTermIndex();
    long commit = closed ? info.getLastAppliedIndex() : d.getRaftLog().getLastCommittedIndex();
    List<Long> matches = new ArrayList<>();
    Map<String, Long> silence = new HashMap<>();
    Map<String, Long> commits = new HashMap<>();
    // null when the division stepped down since isLeader(): a listing racing a leader transfer or a
    // split's new leader threw NullPointerException at the client (a ListRanges call failing unknown)
    long[] followerMatches = info.isLeader() ? info.getFollowerMatchIndices() : null;
    if (followerMatches != null) {
      for (long m : followerMatches) {
        matches.add(m);
      }
      for (ServerRpcProto f : info.getRoleInfoProto().getLeaderInfo().getFollowerInfoList()) {
        silence.put(f.getId().getId().toStringUtf8(), f.getLastRpcElapsedTimeMs());
      }
      for (CommitInfoProto c : d.getCommitInfos()) {
        commits.merge(c.getServer().getId().toStringUtf8(), c.getCommitIndex(), Math::min);
      }
    }
    return new GroupStatus(leadership(info), info.isFollower(), info.getCurrentTerm(), info.getLastAppliedIndex(),
        commit,
        last == null ? new GroupStatus.LogPosition(0, 0) : new GroupStatus.LogPosition(last.getTerm(), last.getIndex()),
        members(conf.getCurrentPeers()), members(conf.getPreviousPeers(RaftPeerRole.FOLLOWER)),
        !conf.getAllPeers(RaftPeerRole.LISTENER).isEmpty(), matches, silence, commits,
        closed);
  }

  static List<Member> members(java.util.Collection<RaftPeer> peers) {
    List<Member> out = new ArrayList<>(peers.size());
    for (RaftPeer p : peers) {
      out.add(new Member(p.getId().toString(), p.getAddress() == null ? "" : p.getAddress()));
    }
    return out;
  }

  static List<RaftPeer> peers(List<Member> members) {
    List<RaftPeer> out = new ArrayList<>(members.size());
    for (Member m : members) {
      out.add(RaftPeer.newBuilder().setId(m.nodeId()).setAddress(m.raftAddress()).build());
    }
    return out;
  }

  @Override
  public CompletableFuture<CommandResult> propose(long rangeId, RangeCommand cmd) {
    return submit(rangeId, ProtoMessage.of(cmd), RaftClientRequest.writeRequestType(), false)
        .thenApply(reply -> reply.getMessage() instanceof ProtoMessage<?> pm && pm.value() instanceof CommandResult r
            ? r
            : parse(() -> CommandResult.parseFrom(reply.getMessage().getContent().asReadOnlyByteBuffer())));
  }

  @Override
  public CompletableFuture<QueryResult> read(long rangeId, RangeQuery query) {
    return submit(rangeId, ProtoMessage.of(query), RaftClientRequest.readRequestType(), true)
        .thenApply(reply -> reply.getMessage() instanceof ProtoMessage<?> pm && pm.value() instanceof QueryResult q
            ? q
            : parse(() -> QueryResult.parseFrom(reply.getMessage().getContent().asReadOnlyByteBuffer())));
  }

  private CompletableFuture<RaftClientReply> submit(long rangeId, Message body, RaftClientRequest.Type type,
      boolean readOnly) {
    RaftClientRequest request = RaftClientRequest.newBuilder()
        .setClientId(clientId)
        .setServerId(server.getId())
        .setGroupId(RangeGroups.groupId(rangeId))
        .setCallId(callIds.incrementAndGet())
        .setMessage(body)
        .setType(type)
        .build();
    CompletableFuture<RaftClientReply> future;
    try {
      // straight to the range's division: the server-level call hops to Ratis' client pool and parks
      // the calling thread on a join until the hop returns (a thread switch and a blocked thread per call)
      future = server.getDivision(request.getRaftGroupId()) instanceof RaftClientAsynchronousProtocol division
          ? division.submitClientRequestAsync(request)
          : server.submitClientRequestAsync(request);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(failure(e, true));
    }
    return future
        .orTimeout(requestTimeout.toMillis(), TimeUnit.MILLISECONDS)
        .handle((reply, error) -> {
          if (error != null) {
            throw failure(error, readOnly);
          }
          if (!reply.isSuccess()) {
            throw failure(reply.getException(), readOnly);
          }
          return reply;
        });
  }

  /**
   * Maps a Ratis failure; {@code safe} when the request could not have been applied either way. A
   * refusal of the replica's own admission check comes back as the replica's exception.
   */
  private RuntimeException failure(Throwable error, boolean safe) {
    Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    if (e instanceof StateMachineException sme && sme.getCause() instanceof RangeKvException rke) {
      return rke;
    }
    if (e instanceof NotLeaderException nle) {
      RaftPeer hint = nle.getSuggestedLeader();
      // a leader stepping down fails pending requests with NotLeader: they may still commit
      return new ConsensusException(Kind.NOT_LEADER, "not leader", hint == null ? "" : hint.getId().toString(), safe);
    }
    if (e instanceof GroupMismatchException) {
      return new ConsensusException(Kind.NO_GROUP, "no group here", true);
    }
    String named = e.getClass().getSimpleName() + ": " + e.getMessage();
    if (e instanceof LeaderSteppingDownException) {
      // refused before it was appended
      return new ConsensusException(Kind.STEPPING_DOWN, named, true);
    }
    if (e instanceof LeaderNotReadyException || e instanceof ResourceUnavailableException) {
      return new ConsensusException(Kind.NOT_READY, named, true);
    }
    if (e instanceof TimeoutException) {
      return new ConsensusException(Kind.TIMED_OUT, "timed out after " + requestTimeout.toMillis() + " ms", safe);
    }
    if (e instanceof RaftException || e instanceof IOException) {
      return new ConsensusException(Kind.FAILED, named, safe);
    }
    return new ConsensusException(Kind.FAILED, "unexpected " + e, safe);
  }

  private interface Parser<T> {
    T parse() throws com.google.protobuf.InvalidProtocolBufferException;
  }

  private static <T> T parse(Parser<T> parser) {
    try {
      return parser.parse();
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new ConsensusException(Kind.FAILED, "undecodable reply: " + e.getMessage(), false);
    }
  }

  @Override
  public CompletableFuture<Void> changeMembers(long rangeId, List<Member> current, List<Member> next,
      Duration timeout) {
    // one call: Ratis stages new peers until they caught up, then commits C_old,new and C_new (joint
    // consensus) when the change replaces peers
    SetConfigurationRequest.Arguments args = SetConfigurationRequest.Arguments.newBuilder()
        .setServersInNewConf(peers(next))
        .setServersInCurrentConf(peers(current))
        .setMode(SetConfigurationRequest.Mode.COMPARE_AND_SET)
        .build();
    return call(() -> server.setConfigurationAsync(new SetConfigurationRequest(clientId, server.getId(),
        RangeGroups.groupId(rangeId), callIds.incrementAndGet(), args)), timeout, "set configuration")
        .thenApply(reply -> null);
  }

  @Override
  public CompletableFuture<Boolean> transferLeadership(long rangeId, String target, Duration timeout) {
    return call(() -> server.transferLeadershipAsync(new TransferLeadershipRequest(clientId, server.getId(),
        RangeGroups.groupId(rangeId), callIds.incrementAndGet(), RaftPeerId.valueOf(target),
        Math.max(1, timeout.toMillis() * 2 / 3))), timeout, "transfer leadership")
        .handleAsync((reply, e) -> {
          if (e == null) {
            return CompletableFuture.completedFuture(reply.isSuccess());
          }
          Throwable c = cause(e);
          return stepDownIfStuck(rangeId, c).<Boolean>thenApply(v -> {
            throw c instanceof RuntimeException re ? re : new CompletionException(c);
          });
        }, executor).thenCompose(f -> f);
  }

  /**
   * Ratis 3.3.0 leaves a leadership transfer that failed to start pending for good
   * ({@code TransferLeadership.start} completes the request's reply but never clears it; only a
   * timed-out transfer or a new leader clears it): the leader then refuses every write and every
   * configuration change with {@code LeaderSteppingDownException} until its leadership changes, and a
   * transfer to any other replica is refused as "a previous request exists". It happens when the target
   * does not answer StartLeaderElection at once, e.g. it died just before: the range would stay unwritable
   * and unrepairable (ControllerRepairIT). Stepping down is the one public way out: the election that
   * follows (among the live replicas; this one may win again) clears the pending transfer. Never
   * completes exceptionally.
   */
  private CompletableFuture<Void> stepDownIfStuck(long rangeId, Throwable failure) {
    String message = String.valueOf(failure.getMessage());
    boolean notStarted = message.contains("COMPLETED_EXCEPTIONALLY") || message.contains("NULL_LOG_APPENDER")
        || message.contains("NULL_FOLLOWER") || message.contains("a previous");
    if (!notStarted || !leadership(rangeId).map(Leadership::leader).orElse(false)) {
      return CompletableFuture.completedFuture(null);
    }
    log.warn("leadership transfer failed to start, stepping down to clear it rangeId={} error={}", rangeId, message);
    CompletableFuture<RaftClientReply> stepDown;
    try {
      stepDown = server.transferLeadershipAsync(new TransferLeadershipRequest(clientId, server.getId(),
          RangeGroups.groupId(rangeId), callIds.incrementAndGet(), null, 5_000)).copy()
          .orTimeout(10, TimeUnit.SECONDS);
    } catch (IOException e) {
      stepDown = CompletableFuture.failedFuture(e);
    }
    return stepDown.handleAsync((r, e) -> {
      if (e != null) {
        log.warn("step down failed rangeId={} error={}", rangeId, cause(e).toString());
      }
      return null;
    }, executor);
  }

  @Override
  public boolean campaign(long rangeId) throws IOException {
    return Candidacy.standNow(server, RangeGroups.groupId(rangeId));
  }

  @Override
  public OptionalLong logTermAt(long rangeId, long index) {
    try {
      TermIndex ti = server.getDivision(RangeGroups.groupId(rangeId)).getRaftLog().getTermIndex(index);
      return ti == null ? OptionalLong.empty() : OptionalLong.of(ti.getTerm());
    } catch (IOException e) {
      return OptionalLong.empty(); // the group is closing: the span keeps the stored term
    }
  }

  @Override
  public void addListener(GroupEvents listener) {
    events.add(listener);
  }

  private interface AsyncCall {
    CompletableFuture<RaftClientReply> call() throws IOException;
  }

  /**
   * A Ratis admin call bounded by {@code timeout}, completing with its successful reply or failing with a
   * {@link ConsensusException} saying {@code what} failed (the reply's exception, the call's failure, or
   * the timeout); the outcome of a failed call is unknown.
   */
  private CompletableFuture<RaftClientReply> call(AsyncCall call, Duration timeout, String what) {
    CompletableFuture<RaftClientReply> sent;
    try {
      sent = call.call().copy().orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(new ConsensusException(Kind.FAILED, what + " failed: " + e, false));
    }
    return sent.handleAsync((reply, e) -> {
      if (e != null) {
        Throwable c = cause(e);
        throw c instanceof TimeoutException
            ? new ConsensusException(Kind.TIMED_OUT, what + " timed out after " + timeout.toMillis() + " ms", false)
            : new ConsensusException(Kind.FAILED, what + " failed: " + c, false);
      }
      if (!reply.isSuccess()) {
        throw new ConsensusException(Kind.FAILED, what + " failed: " + reply.getException(), false);
      }
      return reply;
    }, executor);
  }

  private static Throwable cause(Throwable t) {
    Throwable c = t;
    while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
      c = c.getCause();
    }
    return c;
  }
}
