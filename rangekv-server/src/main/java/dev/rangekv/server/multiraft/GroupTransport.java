package dev.rangekv.server.multiraft;

import io.microraft.RaftEndpoint;
import io.microraft.model.message.RaftMessage;
import io.microraft.transport.Transport;

/** A range group's transport: each message joins its stripe's outbox for the target replica's node's envelope. */
record GroupTransport(Stripe stripe, GroupLog log) implements Transport {
  @Override
  public void send(RaftEndpoint target, RaftMessage message) {
    stripe.send(log, target, message);
  }

  @Override
  public boolean isReachable(RaftEndpoint endpoint) {
    return true;
  }
}
