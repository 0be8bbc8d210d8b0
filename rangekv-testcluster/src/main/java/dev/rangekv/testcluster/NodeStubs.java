package dev.rangekv.testcluster;

import dev.rangekv.proto.KvServiceGrpc;
import dev.rangekv.proto.admin.NodeAdminServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Plaintext channels to a cluster's nodes, one per address, made on first use and shut down on close;
 * stubs with a deadline per call. Thread-safe.
 */
public final class NodeStubs implements AutoCloseable {
  private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();

  /** The KV service of the node at {@code address}; each call bounded by 5 s. */
  public KvServiceGrpc.KvServiceBlockingStub kv(String address) {
    return KvServiceGrpc.newBlockingStub(channel(address)).withDeadlineAfter(5, TimeUnit.SECONDS);
  }

  /** The node-admin service of the node at {@code address}; each call bounded by 10 s. */
  public NodeAdminServiceGrpc.NodeAdminServiceBlockingStub admin(String address) {
    return NodeAdminServiceGrpc.newBlockingStub(channel(address)).withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  private ManagedChannel channel(String address) {
    return channels.computeIfAbsent(address, a -> NettyChannelBuilder.forTarget(a).usePlaintext().build());
  }

  @Override
  public void close() {
    channels.values().forEach(ManagedChannel::shutdownNow);
  }
}
