package dev.rangekv.server.multiraft;

import io.microraft.executor.RaftNodeExecutor;
import io.microraft.impl.handler.AbstractMessageHandler;
import io.microraft.impl.task.FlushTask;
import io.microraft.impl.task.MembershipChangeTask;
import io.microraft.impl.task.QueryTask;
import io.microraft.impl.task.ReplicateTask;
import io.microraft.impl.task.TransferLeadershipTask;
import io.microraft.impl.task.HeartbeatTask;
import io.microraft.impl.task.RaftStateSummaryPublishTask;
import java.util.concurrent.TimeUnit;

/**
 * A range group's executor: its tasks and timers run on the stripe it is pinned to. MicroRaft's flush
 * task (after which a leader counts its own log towards a commit) is held until the cycle after the
 * sync. That hook recognises an implementation class of MicroRaft 0.7 ({@code impl.task.FlushTask}):
 * the version is pinned, and {@code MultiRaftEngineIT} fails if a leader stops committing. MicroRaft's two
 * periodic tasks (its heartbeat and its report) are timed through {@link Quiescence}, which holds them
 * while the group is quiesced.
 */
record StripeExecutor(Group group, Quiescence quiescence) implements RaftNodeExecutor {
  @Override
  public void execute(Runnable task) {
    Stripe stripe = group.stripe;
    Runnable run = quiescence.enabled() && wakes(task) ? () -> {
      quiescence.wake(group);
      task.run();
    } : task;
    // MicroRaft allows running a task at once when the caller is already on the group's thread
    if (stripe.onStripe()) {
      run.run();
    } else {
      stripe.submit(run);
    }
  }

  /** A Raft message, a proposal, a read, a membership change or a transfer: what wakes a quiesced group. */
  private static boolean wakes(Runnable task) {
    return task instanceof AbstractMessageHandler || task instanceof ReplicateTask || task instanceof QueryTask
        || task instanceof MembershipChangeTask || task instanceof TransferLeadershipTask;
  }

  @Override
  public void submit(Runnable task) {
    if (task instanceof FlushTask) {
      group.stripe.afterThisCycle(group.log, task);
      return;
    }
    group.stripe.submit(task);
  }

  @Override
  public void schedule(Runnable task, long delay, TimeUnit unit) {
    if (task instanceof HeartbeatTask || task instanceof RaftStateSummaryPublishTask) {
      quiescence.schedule(group, task, delay, unit);
    } else {
      group.stripe.schedule(task, delay, unit);
    }
  }
}
