package dev.rangekv.server.consensus;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A {@link ScheduledExecutorService} that runs nothing on its own: tasks wait, ordered by due time on an
 * injected clock (a {@link FakeCluster}'s), until the test calls {@link #runDue}, which runs them on the
 * test's thread. Keeps the node's loops (dormancy ticks, closes, wake polls) single-threaded and
 * deterministic beside the fake engine. Thread-safe to schedule on (a gRPC callback may); tasks run only
 * in {@link #runDue}.
 */
public final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {
  private final LongSupplier clockMillis;
  private final PriorityQueue<Task<?>> due =
      new PriorityQueue<>(Comparator.<Task<?>>comparingLong(t -> t.at).thenComparingLong(t -> t.seq));
  private long sequence;
  private volatile boolean shutdown;

  public ManualScheduler(LongSupplier clockMillis) {
    this.clockMillis = clockMillis;
  }

  /** Runs every task due by the clock now, including those the tasks schedule for now; returns how many ran. */
  public int runDue() {
    int ran = 0;
    for (Task<?> t = nextDue(); t != null; t = nextDue()) {
      t.run();
      ran++;
      if (t.period > 0 && !t.isCancelled() && !shutdown) {
        synchronized (this) {
          t.at = clockMillis.getAsLong() + t.period;
          t.seq = sequence++;
          due.add(t);
        }
      }
    }
    return ran;
  }

  private synchronized Task<?> nextDue() {
    return !due.isEmpty() && due.peek().at <= clockMillis.getAsLong() ? due.poll() : null;
  }

  private final class Task<V> extends FutureTask<V> implements ScheduledFuture<V> {
    long at;
    long seq;
    final long period;

    Task(Callable<V> body, long at, long period) {
      super(body);
      this.at = at;
      this.seq = sequence++;
      this.period = period;
    }

    @Override
    public void run() {
      if (period > 0) {
        runAndReset();
      } else {
        super.run();
      }
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(at - clockMillis.getAsLong(), TimeUnit.MILLISECONDS);
    }

    @Override
    public int compareTo(Delayed o) {
      return Long.compare(getDelay(TimeUnit.MILLISECONDS), o.getDelay(TimeUnit.MILLISECONDS));
    }
  }

  private synchronized <V> Task<V> add(Callable<V> body, long delayMillis, long periodMillis) {
    if (shutdown) {
      throw new RejectedExecutionException("shut down");
    }
    Task<V> t = new Task<>(body, clockMillis.getAsLong() + Math.max(0, delayMillis), periodMillis);
    due.add(t);
    return t;
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    return add(() -> {
      command.run();
      return null;
    }, unit.toMillis(delay), 0);
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    return add(callable, unit.toMillis(delay), 0);
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
    return scheduleWithFixedDelay(command, initialDelay, period, unit);
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
    return add(() -> {
      command.run();
      return null;
    }, unit.toMillis(initialDelay), Math.max(1, unit.toMillis(delay)));
  }

  @Override
  public void execute(Runnable command) {
    schedule(command, 0, TimeUnit.MILLISECONDS);
  }

  @Override
  public void shutdown() {
    shutdown = true;
  }

  @Override
  public synchronized List<Runnable> shutdownNow() {
    shutdown = true;
    List<Runnable> left = new ArrayList<>(due);
    due.clear();
    return left;
  }

  @Override
  public boolean isShutdown() {
    return shutdown;
  }

  @Override
  public synchronized boolean isTerminated() {
    return shutdown && due.isEmpty();
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return isTerminated();
  }
}
