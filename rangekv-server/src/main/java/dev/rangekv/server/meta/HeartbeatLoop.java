package dev.rangekv.server.meta;

import dev.rangekv.proto.meta.HeartbeatRequest;
import dev.rangekv.proto.meta.HeartbeatResponse;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends this node's heartbeat (its record and per-range stats) to the meta leader every interval. A
 * missed heartbeat is only logged: the next one carries fresh numbers, and the meta range declares a
 * node dead only after many intervals of silence.
 */
public final class HeartbeatLoop implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HeartbeatLoop.class);
  private final Supplier<HeartbeatRequest> heartbeats;
  private final MetaLocator meta;
  private final long intervalMillis;
  private final Consumer<HeartbeatResponse> answers;
  private ScheduledFuture<?> task;
  private int failuresInARow;

  /** @param answers sees each answer of the meta leader (on the loop's thread) */
  public HeartbeatLoop(Supplier<HeartbeatRequest> heartbeats, MetaLocator meta, long intervalMillis,
      Consumer<HeartbeatResponse> answers) {
    this.heartbeats = heartbeats;
    this.meta = meta;
    this.intervalMillis = intervalMillis;
    this.answers = answers;
  }

  /** Starts sending on {@code executor}, the first heartbeat at once. */
  public synchronized void start(ScheduledExecutorService executor) {
    if (task == null) {
      task = executor.scheduleWithFixedDelay(this::beatOnce, 0, intervalMillis, TimeUnit.MILLISECONDS);
    }
  }

  /** Builds and sends one heartbeat; true when the meta leader accepted it. */
  public boolean beatOnce() {
    try {
      HeartbeatRequest request = heartbeats.get();
      HeartbeatResponse answer = meta.report(stub -> stub.heartbeat(request),
          Duration.ofMillis(Math.max(1_000, intervalMillis)));
      if (failuresInARow > 0) {
        log.info("heartbeat delivered again after failures={}", failuresInARow);
      }
      failuresInARow = 0;
      answers.accept(answer);
      return true;
    } catch (StatusRuntimeException | IllegalStateException e) {
      failuresInARow++;
      if (failuresInARow == 1 || failuresInARow % 10 == 0) {
        log.warn("heartbeat not delivered failuresInARow={} error={}", failuresInARow, e.toString());
      }
      return false;
    } catch (RuntimeException e) {
      log.error("heartbeat failed to build or send", e);
      return false;
    }
  }

  @Override
  public synchronized void close() {
    if (task != null) {
      task.cancel(false);
      task = null;
    }
  }
}
