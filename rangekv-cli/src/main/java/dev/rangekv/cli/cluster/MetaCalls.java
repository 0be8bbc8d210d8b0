package dev.rangekv.cli.cluster;

import dev.rangekv.proto.MetaServiceGrpc;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.tls.TlsFiles;
import dev.rangekv.server.meta.MetaLocator;
import dev.rangekv.server.raft.PeerChannels;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Calls MetaService through the server's {@link MetaLocator} (which follows the meta leader hint, skips
 * unreachable nodes and retries a change only when it definitely did not happen) and turns its
 * failures into one-line {@link CliException}s. Not thread-safe; one per command run.
 */
public final class MetaCalls implements AutoCloseable {
  private final List<String> seeds;
  /** No TLS: a closed connection may be a secure node's answer to plaintext. */
  private final boolean plaintext;
  private final Duration timeout;
  private final PeerChannels channels;
  private final MetaLocator locator;

  /** Plaintext calls (an insecure cluster). */
  public MetaCalls(List<String> seeds, Duration timeout) {
    this(seeds, timeout, Optional.empty());
  }

  /** Calls with mutual TLS when {@code tls} is given. */
  public MetaCalls(List<String> seeds, Duration timeout, Optional<TlsFiles> tls) {
    this.seeds = List.copyOf(seeds);
    this.timeout = timeout;
    this.plaintext = tls.isEmpty();
    // the client's context builder, not the node's: this class runs in the thin jar (no Ratis, no node);
    // own event loops, ended by close(), so a one-shot command's exit does not wait for gRPC's shared ones
    this.channels = PeerChannels.forCommand(64 << 20, tls.map(dev.rangekv.client.routing.NodeChannels::clientContext));
    this.locator = MetaLocator.forCommand(channels, this.seeds);
  }

  /** A read (safe to retry anywhere). */
  public <R> R read(Function<MetaServiceGrpc.MetaServiceBlockingStub, R> call) {
    return call(call, false);
  }

  /** A change (split, merge, move, presplit): retried only when it definitely did not happen. */
  public <R> R change(Function<MetaServiceGrpc.MetaServiceBlockingStub, R> call) {
    return call(call, true);
  }

  private <R> R call(Function<MetaServiceGrpc.MetaServiceBlockingStub, R> call, boolean change) {
    String[] asked = {seeds.get(0)}; // the node of the last attempt, named in the error
    Function<MetaServiceGrpc.MetaServiceBlockingStub, R> tracked = stub -> {
      asked[0] = stub.getChannel().authority();
      return call.apply(stub);
    };
    try {
      return change ? locator.change(tracked, timeout) : locator.call(tracked, timeout);
    } catch (StatusRuntimeException e) {
      throw failure(e, RangeKvErrors.fromThrowable(e), asked[0], plaintext);
    } catch (IllegalStateException e) {
      throw new CliException(Thread.currentThread().isInterrupted() ? "interrupted"
          : "timed out after " + timeout.toMillis() + " ms waiting for the meta range at " + seeds, e);
    }
  }

  /** One line for people; the gRPC exception stays the cause for {@code --verbose}. */
  static CliException failure(StatusRuntimeException e, Optional<RangeKvError> typed, String address,
      boolean plaintext) {
    if (typed.isPresent()) {
      RangeKvError t = typed.get();
      if (t.hasRangeNotFound()) {
        return new CliException("unknown range " + t.getRangeNotFound().getRangeId(), e);
      }
      if (t.hasInvalidArgument()) {
        // messages read "<limit>: <text>", e.g. "range_id: unknown range 42": people need the text
        String limit = t.getInvalidArgument().getLimit() + ": ";
        String text = t.getMessage().startsWith(limit) ? t.getMessage().substring(limit.length()) : t.getMessage();
        return new CliException(text.isEmpty() ? "invalid argument " + t.getInvalidArgument().getLimit() : text, e);
      }
      if (t.hasNotLeader()) {
        return new CliException("no meta leader answered (last asked " + address + "): " + t.getMessage(), e);
      }
      String outcome = t.getDefinitelyNotApplied() ? "" : " (outcome unknown: check with 'rangekv ranges')";
      return new CliException(t.getMessage() + outcome, e);
    }
    Status s = e.getStatus();
    return switch (s.getCode()) {
      case UNAVAILABLE -> new CliException("cannot reach the cluster at " + address + " ("
          + Unreachable.describe(e, plaintext ? List.of(address) : List.of()) + ")", e);
      case UNAUTHENTICATED -> new CliException("UNAUTHENTICATED by " + address + ": " + describe(s), e);
      case PERMISSION_DENIED -> new CliException("PERMISSION_DENIED by " + address + ": " + describe(s), e);
      case DEADLINE_EXCEEDED -> new CliException("timed out waiting for " + address
          + " (outcome unknown: check with 'rangekv ranges'; raise --timeout)", e);
      case UNIMPLEMENTED -> new CliException("the node at " + address
          + " does not serve the meta API (is it a RangeKV node with a meta range?)", e);
      case NOT_FOUND -> new CliException("not found: " + describe(s), e);
      case INVALID_ARGUMENT, FAILED_PRECONDITION -> new CliException(describe(s), e);
      default -> new CliException(s.getCode() + " from " + address + ": " + describe(s), e);
    };
  }

  private static String describe(Status s) {
    return s.getDescription() == null ? s.getCode().toString() : s.getDescription();
  }

  @Override
  public void close() {
    channels.close();
  }
}
