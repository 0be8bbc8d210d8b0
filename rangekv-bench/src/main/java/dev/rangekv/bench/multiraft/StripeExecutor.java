package dev.rangekv.bench.multiraft;

import io.microraft.executor.RaftNodeExecutor;
import io.microraft.impl.task.FlushTask;
import java.util.concurrent.TimeUnit;

/**
 * A group's executor on a node-wide runtime: its tasks and timers run on the stripe it is pinned to.
 * On the pipelined runtime, MicroRaft's flush task (after which a leader counts its own log for
 * commit) is held until the cycle after the sync.
 */
record StripeExecutor(Stripe stripe, GroupStore store) implements RaftNodeExecutor {
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
    if (task instanceof FlushTask && stripe.pipelined()) {
      stripe.afterThisCycle(store, task);
      return;
    }
    stripe.submit(task);
  }

  @Override
  public void schedule(Runnable task, long delay, TimeUnit unit) {
    stripe.schedule(task, delay, unit);
  }
}
