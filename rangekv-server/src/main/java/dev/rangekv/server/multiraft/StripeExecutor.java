package dev.rangekv.server.multiraft;

import io.microraft.executor.RaftNodeExecutor;
import io.microraft.impl.task.FlushTask;
import java.util.concurrent.TimeUnit;

/**
 * A range group's executor: its tasks and timers run on the stripe it is pinned to. MicroRaft's flush
 * task (after which a leader counts its own log towards a commit) is held until the cycle after the
 * sync. That hook recognises an implementation class of MicroRaft 0.7 ({@code impl.task.FlushTask}):
 * the version is pinned, and {@code MultiRaftEngineIT} fails if a leader stops committing.
 */
record StripeExecutor(Stripe stripe, GroupLog log) implements RaftNodeExecutor {
  @Override
  public void execute(Runnable task) {
    // MicroRaft allows running a task at once when the caller is already on the group's thread
    if (stripe.onStripe()) {
      task.run();
    } else {
      stripe.submit(task);
    }
  }

  @Override
  public void submit(Runnable task) {
    if (task instanceof FlushTask) {
      stripe.afterThisCycle(log, task);
      return;
    }
    stripe.submit(task);
  }

  @Override
  public void schedule(Runnable task, long delay, TimeUnit unit) {
    stripe.schedule(task, delay, unit);
  }
}
