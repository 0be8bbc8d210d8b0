package dev.rangekv.server.multiraft;

import dev.rangekv.proto.multiraft.Envelope;
import dev.rangekv.proto.multiraft.MultiRaftTransportGrpc;
import dev.rangekv.proto.multiraft.Quiesce;
import dev.rangekv.proto.multiraft.RaftMsg;
import dev.rangekv.proto.multiraft.StreamClosed;
import io.grpc.Channel;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client stream per peer node, opened on first use and again after it broke: every envelope of every
 * stripe to that node goes on it. Raft tolerates lost messages (it retries), so an envelope sent while
 * the stream is down is dropped. Thread-safe; a stream's sends are serialised (two stripes may send to
 * the same peer).
 */
final class PeerStreams implements Stripe.Network, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PeerStreams.class);

  /** The messages' bytes above which an envelope takes no further message (a message is at most ~5 MiB). */
  static final int ENVELOPE_BYTES = 6 << 20;

  private final String selfId;
  private final Function<String, Optional<String>> addressOf;
  private final Function<String, Channel> channels;
  private final Map<String, Peer> peers = new ConcurrentHashMap<>();

  PeerStreams(String selfId, Function<String, Optional<String>> addressOf, Function<String, Channel> channels) {
    this.selfId = selfId;
    this.addressOf = addressOf;
    this.channels = channels;
  }

  private final class Peer implements StreamObserver<StreamClosed> {
    final String node;
    final StreamObserver<Envelope> out;

    Peer(String node, Channel channel) {
      this.node = node;
      this.out = MultiRaftTransportGrpc.newStub(channel).stream(this);
    }

    synchronized void send(Envelope e) {
      out.onNext(e);
    }

    @Override
    public void onNext(StreamClosed value) {}

    @Override
    public void onError(Throwable t) {
      peers.remove(node, this);
      log.debug("Raft stream to peer broke peer={} error={}", node, t.toString());
    }

    @Override
    public void onCompleted() {
      peers.remove(node, this);
    }
  }

  @Override
  public void deliver(String toNode, List<RaftMsg> messages) {
    deliver(toNode, messages, List.of());
  }

  /** An envelope with no messages (a keep-alive of this node, {@link NodeLiveness}) to each node named. */
  void keepAlive(Iterable<String> nodes) {
    for (String n : nodes) {
      if (!n.equals(selfId)) {
        deliver(n, List.of(), List.of());
      }
    }
  }

  @Override
  public void deliver(String toNode, List<RaftMsg> messages, List<Quiesce> quiesced) {
    Peer peer = peers.get(toNode);
    if (peer == null) {
      Optional<String> address = addressOf.apply(toNode);
      if (address.isEmpty()) {
        log.debug("no address for Raft peer, envelope dropped peer={}", toNode);
        return;
      }
      peer = peers.computeIfAbsent(toNode, n -> new Peer(n, channels.apply(address.get())));
    }
    try {
      // several envelopes when one would exceed what the peer accepts in one message (8 MiB), in order
      // the quiesce notices ride in the first one: a receiver handles them before that envelope's messages
      Envelope.Builder env = Envelope.newBuilder().setFromNode(selfId).addAllQuiesced(quiesced);
      long bytes = 0;
      for (RaftMsg m : messages) {
        int size = m.getSerializedSize();
        if (env.getMessagesCount() > 0 && bytes + size > ENVELOPE_BYTES) {
          peer.send(env.build());
          env = Envelope.newBuilder().setFromNode(selfId);
          bytes = 0;
        }
        env.addMessages(m);
        bytes += size;
      }
      peer.send(env.build());
    } catch (RuntimeException e) {
      peers.remove(toNode, peer);
      log.debug("Raft envelope not sent peer={} error={}", toNode, e.toString());
    }
  }

  @Override
  public void close() {
    for (Peer p : peers.values()) {
      try {
        p.out.onCompleted();
      } catch (RuntimeException e) {
        log.debug("closing Raft stream failed peer={} error={}", p.node, e.toString());
      }
    }
    peers.clear();
  }
}
