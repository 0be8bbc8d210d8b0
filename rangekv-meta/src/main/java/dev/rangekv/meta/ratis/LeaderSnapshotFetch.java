package dev.rangekv.meta.ratis;

import dev.rangekv.proto.meta.MetaSnapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.RaftPeerProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Install-snapshot in notification mode for the meta range: a follower behind the leader's purged
 * log asks the leader, through a Ratis read-only query, for its whole state and the term-index it
 * reflects. The meta state is small (descriptors, node records, bounded events), so one message
 * carries it; it must fit Ratis' gRPC message size limit.
 */
final class LeaderSnapshotFetch {
  /** The query a leader answers with {@link #encode}. */
  static final ByteString QUERY = ByteString.copyFromUtf8("rangekv-meta/snapshot");

  private static final Logger log = LoggerFactory.getLogger(LeaderSnapshotFetch.class);

  private LeaderSnapshotFetch() {}

  /** The state and the term-index it reflects, as fetched from the leader. */
  record Fetched(TermIndex termIndex, MetaSnapshot snapshot) {}

  /** term (8 bytes), index (8 bytes), then the snapshot. */
  static Message encode(TermIndex ti, MetaSnapshot snapshot) {
    byte[] body = snapshot.toByteArray();
    ByteBuffer b = ByteBuffer.allocate(16 + body.length).putLong(ti.getTerm()).putLong(ti.getIndex()).put(body);
    b.flip();
    return Message.valueOf(ByteString.copyFrom(b));
  }

  static Fetched decode(ByteString content) throws IOException {
    ByteBuffer b = content.asReadOnlyByteBuffer();
    if (b.remaining() < 16) {
      throw new IOException("meta snapshot reply too short: " + b.remaining() + " bytes");
    }
    TermIndex ti = TermIndex.valueOf(b.getLong(), b.getLong());
    return new Fetched(ti, MetaSnapshot.parseFrom(b));
  }

  /**
   * Asks {@code leader} for its state; the future fails when the leader cannot answer (Ratis asks
   * again). Everything, client construction included, runs on {@code executor}: Ratis calls the
   * notification on its RPC thread, and a follower blocked there misses heartbeats and campaigns.
   */
  static CompletableFuture<Fetched> fetch(RaftProperties properties, Parameters parameters, RaftGroupId groupId, RaftPeerProto leader,
      Executor executor) {
    RaftPeer peer = RaftPeer.newBuilder()
        .setId(RaftPeerId.valueOf(leader.getId()))
        .setAddress(leader.getAddress())
        .build();
    return CompletableFuture.supplyAsync(() -> RaftClient.newBuilder()
        .setRaftGroup(RaftGroup.valueOf(groupId, peer))
        .setProperties(properties)
        .setParameters(parameters)
        .setLeaderId(peer.getId())
        .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(3, TimeDuration.valueOf(200, TimeUnit.MILLISECONDS)))
        .build(), executor)
        .thenCompose(client -> client.async().sendReadOnly(Message.valueOf(QUERY), peer.getId())
            .whenCompleteAsync((r, e) -> close(client), executor))
        .thenApply(r -> {
          if (!r.isSuccess()) {
            throw new IllegalStateException("meta leader refused the snapshot query", r.getException());
          }
          try {
            return decode(r.getMessage().getContent());
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  /** Not on the reply's gRPC thread: closing the client shuts its channel down and waits. */
  private static void close(RaftClient client) {
    try {
      client.close();
    } catch (IOException e) {
      log.warn("closing the meta snapshot fetch client failed error={}", e.toString());
    }
  }
}
