package dev.rangekv.bench.seam;

import dev.rangekv.proto.BatchResponse;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.proto.replica.WriteResults;
import dev.rangekv.server.ratis.ProtoMessage;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.protocol.RaftClientAsynchronousProtocol;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.server.RaftServer;

/**
 * A Ratis server (a {@link Proxy}: only {@code getId} and {@code getDivision} answer) whose every group's
 * division takes a client request and hands back a pending reply future, which {@link #answer} completes
 * the way a leader's division does once the entry applied: the reply carrying the state machine's result
 * as a {@link ProtoMessage} (one succeeded result per client write), or a not-leader failure. So {@code
 * RatisRangeConsensus} runs its real code around a division with no log, replication or state machine.
 * One caller at a time.
 */
final class ImmediateDivision {
  private static final CommandResult SUCCEEDED =
      CommandResult.newBuilder().setBatch(BatchResponse.newBuilder().setSucceeded(true).setFailedCheckIndex(-1))
          .build();

  private final RaftPeerId self = RaftPeerId.valueOf("n1");
  private final RaftServer server;
  private final RaftClientAsynchronousProtocol division;
  private RaftClientRequest request;
  private CompletableFuture<RaftClientReply> pending;

  ImmediateDivision() {
    InvocationHandler divisionCalls = (proxy, method, args) -> {
      if (method.getName().equals("submitClientRequestAsync")) {
        request = (RaftClientRequest) args[0];
        pending = new CompletableFuture<>();
        return pending;
      }
      return unsupported(method);
    };
    division = (RaftClientAsynchronousProtocol) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {RaftServer.Division.class, RaftClientAsynchronousProtocol.class}, divisionCalls);
    InvocationHandler serverCalls = (proxy, method, args) -> switch (method.getName()) {
      case "getId" -> self;
      case "getDivision" -> division;
      default -> unsupported(method);
    };
    server = (RaftServer) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {RaftServer.class},
        serverCalls);
  }

  RaftServer server() {
    return server;
  }

  /** The division alone: what the adapter calls, with a request built once by the caller. */
  CompletableFuture<RaftClientReply> submit(RaftClientRequest r) throws java.io.IOException {
    return division.submitClientRequestAsync(r);
  }

  /** Completes the request submitted last as applied, or refused as not led here when {@code notLeader}. */
  void answer(boolean notLeader) {
    RaftClientReply.Builder reply = RaftClientReply.newBuilder().setRequest(request).setServerId(self);
    if (notLeader) {
      reply.setException(new NotLeaderException(RaftGroupMemberId.valueOf(self, request.getRaftGroupId()), null,
          null));
    } else {
      reply.setSuccess().setLogIndex(request.getCallId()).setMessage(ProtoMessage.of(result(request)));
    }
    CompletableFuture<RaftClientReply> p = pending;
    pending = null;
    p.complete(reply.build());
  }

  private static CommandResult result(RaftClientRequest r) {
    RangeCommand cmd = ((ProtoMessage<?>) r.getMessage()).value() instanceof RangeCommand c ? c : null;
    WriteResults.Builder results = WriteResults.newBuilder();
    for (int i = 0; cmd != null && i < cmd.getWrites().getWritesCount(); i++) {
      results.addResults(SUCCEEDED);
    }
    return CommandResult.newBuilder().setWrites(results).build();
  }

  private static Object unsupported(Method method) {
    throw new UnsupportedOperationException("the benchmark's division does not " + method.getName());
  }
}
