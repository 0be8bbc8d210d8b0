package dev.rangekv.bench.seam;

import com.google.protobuf.ByteString;
import dev.rangekv.proto.BatchRequest;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.proto.Mutation;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.WriteId;
import dev.rangekv.proto.replica.ClientWrites;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.server.consensus.GroupEventHub;
import dev.rangekv.server.raft.RaftGateway;
import dev.rangekv.server.ratis.ProtoMessage;
import dev.rangekv.server.ratis.RangeGroups;
import dev.rangekv.server.ratis.RatisRangeConsensus;
import dev.rangekv.server.replica.RangeKvException;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftPeerId;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The per-write work of the consensus seam's layers on the write path, with engines that answer at once
 * (one proposal of one client put, the smallest a node's proposal buffers send):
 * <ul>
 *   <li>{@code engineAlone}: the benchmark's {@link ImmediateEngine} answering a proposal (the floor the
 *       gateway's figure stands on);</li>
 *   <li>{@code gateway}: {@link RaftGateway#propose} over that engine: the interface call and the stage
 *       that types the engine's failures;</li>
 *   <li>{@code divisionAlone}: the {@link ImmediateDivision}'s work for one request built beforehand (take
 *       it, hand back a pending future, build and complete the applied reply): the floor of the next two;</li>
 *   <li>{@code adapter}: {@link RatisRangeConsensus#propose} over that division: the command wrapped as a
 *       {@code ProtoMessage}, the Ratis request built (group id, call id), the division looked up, the
 *       request timeout armed and disarmed, the reply checked and the result unwrapped;</li>
 *   <li>{@code gatewayOverAdapter}: both, what a node runs per proposal between its proposal buffers
 *       and Ratis' division, and between the division's reply and the buffers' completion;</li>
 *   <li>{@code gatewayOverAdapterNotLeader}: the same with the division refusing as not leader: the
 *       failure mapped to a {@code ConsensusException}, then to a {@link RangeKvException} (rare: a leader
 *       change).</li>
 * </ul>
 * The seam's cost per proposal is at most {@code gatewayOverAdapter − divisionAlone} (all of the
 * adapter's and the gateway's work, counted as if none of it had been there before the seam), and
 * per update at most that again, since a proposal carries one or more updates.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgs = {"-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class SeamCostBenchmark {
  private static final long RANGE = 7;

  private ImmediateEngine engine;
  private RaftGateway gateway;
  private ImmediateDivision division;
  private RatisRangeConsensus adapter;
  private RaftGateway gatewayOverAdapter;
  private RangeCommand put;
  private RaftClientRequest request;

  @Setup
  public void setUp() {
    engine = new ImmediateEngine(RANGE);
    // propose never looks a replica up: the gateway's directory serves its admission checks only
    gateway = new RaftGateway(engine, null);
    division = new ImmediateDivision();
    // no group lifecycle here, so no parked-group storage; the node's default request timeout
    adapter = new RatisRangeConsensus(division.server(), null, Duration.ofSeconds(10), Runnable::run,
        new GroupEventHub());
    gatewayOverAdapter = new RaftGateway(adapter, null);
    BatchRequest write = BatchRequest.newBuilder()
        .setHeader(RangeHeader.newBuilder().setRangeId(RANGE).setGeneration(1))
        .setWriteId(WriteId.newBuilder().setClientId(ByteString.copyFrom(new byte[16])).setRequestId(1))
        .addMutations(Mutation.newBuilder().setPut(KeyValueProto.newBuilder()
            .setKey(ByteString.copyFromUtf8("user0000000042")).setValue(ByteString.copyFrom(new byte[100]))))
        .build();
    put = RangeCommand.newBuilder().setWrites(ClientWrites.newBuilder().addWrites(write)).build();
    request = RaftClientRequest.newBuilder()
        .setClientId(ClientId.randomId())
        .setServerId(RaftPeerId.valueOf("n1"))
        .setGroupId(RangeGroups.groupId(RANGE))
        .setCallId(1)
        .setMessage(ProtoMessage.of(put))
        .setType(RaftClientRequest.writeRequestType())
        .build();
  }

  @Benchmark
  public CommandResult engineAlone() {
    return engine.propose(RANGE, put).join();
  }

  @Benchmark
  public CommandResult gateway() {
    return gateway.propose(RANGE, put).join();
  }

  @Benchmark
  public RaftClientReply divisionAlone() throws IOException {
    CompletableFuture<RaftClientReply> f = division.submit(request);
    division.answer(false);
    return f.join();
  }

  @Benchmark
  public CommandResult adapter() {
    CompletableFuture<CommandResult> f = adapter.propose(RANGE, put);
    division.answer(false);
    return f.join();
  }

  @Benchmark
  public CommandResult gatewayOverAdapter() {
    CompletableFuture<CommandResult> f = gatewayOverAdapter.propose(RANGE, put);
    division.answer(false);
    return f.join();
  }

  @Benchmark
  public Throwable gatewayOverAdapterNotLeader() {
    CompletableFuture<CommandResult> f = gatewayOverAdapter.propose(RANGE, put);
    division.answer(true);
    try {
      f.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RangeKvException refused) {
        return refused;
      }
      throw e;
    }
    throw new IllegalStateException("a refused proposal completed");
  }
}
