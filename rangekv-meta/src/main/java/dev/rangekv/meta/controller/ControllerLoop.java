package dev.rangekv.meta.controller;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@link Controller#tick} every {@code controller.tick} on one daemon thread of its own. The
 * server starts it on every node hosting a meta replica (ticks are no-ops while the node is not the
 * meta leader, so it may run all the time) and stops it at shutdown. A tick that throws is logged and
 * the next tick runs as scheduled. Thread-safe; start and stop at most once each.
 */
public final class ControllerLoop implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ControllerLoop.class);

  private final Controller controller;
  private final LongSupplier clock;
  private final long tickMillis;
  private ScheduledExecutorService scheduler;

  public ControllerLoop(Controller controller, LongSupplier clock) {
    this.controller = controller;
    this.clock = clock;
    this.tickMillis = controller.config().tickMillis();
  }

  public synchronized void start() {
    if (scheduler != null) {
      throw new IllegalStateException("controller loop already started");
    }
    scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "rangekv-controller");
      t.setDaemon(true);
      return t;
    });
    scheduler.scheduleWithFixedDelay(this::tickOnce, tickMillis, tickMillis, TimeUnit.MILLISECONDS);
    log.info("controller loop started tickMillis={}", tickMillis);
  }

  private void tickOnce() {
    try {
      controller.tick(clock.getAsLong());
    } catch (RuntimeException e) {
      log.error("controller tick failed error={}", e.toString(), e);
    }
  }

  public synchronized boolean isRunning() {
    return scheduler != null && !scheduler.isShutdown();
  }

  /** Stops ticking; steps already started finish on the step executor. */
  public synchronized void stop() {
    if (scheduler != null && !scheduler.isShutdown()) {
      scheduler.shutdownNow();
      log.info("controller loop stopped");
    }
  }

  @Override
  public void close() {
    stop();
  }
}
