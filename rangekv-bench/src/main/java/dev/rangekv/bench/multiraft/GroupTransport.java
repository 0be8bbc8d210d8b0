package dev.rangekv.bench.multiraft;

import io.microraft.RaftEndpoint;
import io.microraft.model.message.AppendEntriesSuccessResponse;
import io.microraft.model.message.RaftMessage;
import io.microraft.model.message.VoteResponse;
import io.microraft.transport.Transport;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A group's transport. On the node-wide runtime a message joins its stripe's outbox for the peer (and
 * leaves with the cycle's envelope after the sync); on the per-group runtime it is handed to the
 * peer's replica at once, one message at a time, as a per-group engine sends it. Follower replies are
 * checked against the sender's durable log either way (a per-group leader sends appends before its own
 * flush, which Raft allows, so requests are checked on the node-wide runtime only).
 */
final class GroupTransport implements Transport {
  /** Hands one message to the replica of its group on another node (per-group runtime). */
  interface Direct {
    void deliver(int toNode, RaftMessage message);
  }

  private final GroupStore store;
  private final Stripe stripe;
  private final Direct direct;
  private final AtomicLong sent;
  private final AtomicLong unsyncedReplies;

  private GroupTransport(GroupStore store, Stripe stripe, Direct direct, AtomicLong sent, AtomicLong unsyncedReplies) {
    this.store = store;
    this.stripe = stripe;
    this.direct = direct;
    this.sent = sent;
    this.unsyncedReplies = unsyncedReplies;
  }

  static GroupTransport onStripe(GroupStore store, Stripe stripe) {
    return new GroupTransport(store, stripe, null, null, null);
  }

  static GroupTransport direct(GroupStore store, Direct direct, AtomicLong sent, AtomicLong unsyncedReplies) {
    return new GroupTransport(store, null, direct, sent, unsyncedReplies);
  }

  @Override
  public void send(RaftEndpoint target, RaftMessage message) {
    int toNode = ((NodeEndpoint) target).node();
    if (stripe != null) {
      stripe.send(store, toNode, message);
      return;
    }
    boolean reply = message instanceof AppendEntriesSuccessResponse
        || (message instanceof VoteResponse vote && vote.isGranted());
    if (reply && !Stripe.covered(store, message)) {
      unsyncedReplies.incrementAndGet();
    }
    sent.incrementAndGet();
    direct.deliver(toNode, message);
  }

  @Override
  public boolean isReachable(RaftEndpoint endpoint) {
    return true;
  }
}
