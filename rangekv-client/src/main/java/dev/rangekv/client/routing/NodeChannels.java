package dev.rangekv.client.routing;

import dev.rangekv.proto.KvServiceGrpc;
import dev.rangekv.proto.MetaServiceGrpc;
import dev.rangekv.proto.NodeAdminServiceGrpc;
import dev.rangekv.proto.tls.TlsFiles;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.grpc.stub.StreamObserver;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * One gRPC channel per node address, created on first use and shared by all calls. Thread-safe.
 * Channels reconnect by themselves after a node restarts; {@link #close()} shuts all of them down,
 * with their event loop threads.
 */
public final class NodeChannels implements AutoCloseable {
  private final ConcurrentMap<String, ManagedChannel> channels = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, CallMux> calls = new ConcurrentHashMap<>();
  /** Completes the futures of calls answered on the call streams (a small pool shared by all nodes). */
  private final ExecutorService callbacks = Executors.newFixedThreadPool(
      Math.max(2, Runtime.getRuntime().availableProcessors()), r -> {
        Thread t = new Thread(r, "rangekv-client-callbacks");
        t.setDaemon(true);
        return t;
      });
  /**
   * This client's own network threads (daemons, started on first use), ended by {@link #close()}: a
   * thread left waiting in native code (epoll) makes the JVM's exit wait ~300 ms for it, which a one-shot
   * {@code rangekv get} paid on every run; gRPC's shared event loops end only a second after the last
   * channel closes.
   */
  private final EventLoopGroup loops = new NioEventLoopGroup(0, new DefaultThreadFactory("rangekv-client-io", true));
  /** Empty: plaintext. */
  private final Optional<SslContext> tls;
  private volatile boolean closed;

  /** Plaintext channels (an insecure cluster). */
  public NodeChannels() {
    this(Optional.empty());
  }

  /**
   * Channels with mutual TLS 1.3 when {@code tls} is given (its files are read now: a missing one fails
   * here with an {@link IllegalArgumentException} naming it), plaintext otherwise.
   */
  public NodeChannels(Optional<TlsFiles> tls) {
    this.tls = tls.map(NodeChannels::clientContext);
  }

  /**
   * A client-side TLS 1.3 context presenting {@code files}' certificate and trusting only its CA; a
   * missing or unreadable file fails with an {@link IllegalArgumentException} naming it.
   */
  public static SslContext clientContext(TlsFiles files) {
    files.requireReadable();
    try {
      return GrpcSslContexts.forClient()
          .trustManager(files.caCert().toFile())
          .keyManager(files.certChain().toFile(), files.privateKey().toFile())
          .protocols(TlsFiles.PROTOCOL)
          .build();
    } catch (javax.net.ssl.SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException("cannot load the TLS files " + files + ": " + e.getMessage(), e);
    }
  }

  public KvServiceGrpc.KvServiceStub kv(String address) {
    return KvServiceGrpc.newStub(channel(address));
  }

  /** KV calls to the node at {@code address} on its shared call stream, each with {@code timeoutNanos}. */
  public NodeCalls calls(String address, long timeoutNanos) {
    ManagedChannel ch = channel(address);
    return new NodeCalls(calls.computeIfAbsent(address, a -> new CallMux(ch, callbacks)), timeoutNanos);
  }

  public NodeAdminServiceGrpc.NodeAdminServiceStub admin(String address) {
    return NodeAdminServiceGrpc.newStub(channel(address));
  }

  public MetaServiceGrpc.MetaServiceStub meta(String address) {
    return MetaServiceGrpc.newStub(channel(address));
  }

  private ManagedChannel channel(String address) {
    if (closed) {
      throw new IllegalStateException("client closed");
    }
    return channels.computeIfAbsent(address, a -> {
      NettyChannelBuilder b = NettyChannelBuilder.forTarget(a).eventLoopGroup(loops).channelType(NioSocketChannel.class);
      return (tls.isPresent() ? b.sslContext(tls.get()) : b.usePlaintext()).build();
    });
  }

  /** Adapts an async unary stub method to a future. */
  public static <Q, R> CompletableFuture<R> unary(BiConsumer<Q, StreamObserver<R>> method, Q request) {
    CompletableFuture<R> f = new CompletableFuture<>();
    method.accept(request, new StreamObserver<>() {
      @Override
      public void onNext(R value) {
        f.complete(value);
      }

      @Override
      public void onError(Throwable t) {
        f.completeExceptionally(t);
      }

      @Override
      public void onCompleted() {
        if (!f.isDone()) {
          f.completeExceptionally(new IllegalStateException("unary call completed without a reply"));
        }
      }
    });
    return f;
  }

  @Override
  public void close() {
    closed = true;
    calls.values().forEach(CallMux::close);
    callbacks.shutdown();
    for (ManagedChannel c : channels.values()) {
      c.shutdownNow();
    }
    try {
      for (ManagedChannel c : channels.values()) {
        c.awaitTermination(5, TimeUnit.SECONDS);
      }
      // no quiet period: every channel has terminated, nothing more will be submitted to the loops
      loops.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
