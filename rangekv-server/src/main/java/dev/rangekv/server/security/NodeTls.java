package dev.rangekv.server.security;

import dev.rangekv.proto.tls.TlsFiles;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import javax.net.ssl.SSLException;

/**
 * A node's mutual TLS (TLS 1.3 only) from its {@link TlsFiles}: the client port's server context, the
 * context of its channels to other nodes, and the files themselves (the consensus engine's transport uses
 * the same ones). Immutable.
 */
public final class NodeTls {
  private final TlsFiles files;
  private final SslContext server;
  private final SslContext client;

  private NodeTls(TlsFiles files, SslContext server, SslContext client) {
    this.files = files;
    this.server = server;
    this.client = client;
  }

  /** Loads {@code files}; a missing or unreadable file fails with one line naming it. */
  public static NodeTls load(TlsFiles files) {
    files.requireReadable();
    try {
      SslContext server = GrpcSslContexts.configure(SslContextBuilder.forServer(file(files.certChain()), file(files.privateKey())))
          .trustManager(file(files.caCert()))
          .clientAuth(ClientAuth.REQUIRE)
          .protocols(TlsFiles.PROTOCOL)
          .build();
      return new NodeTls(files, server, clientContext(files));
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException("cannot load the TLS files " + files + ": " + e.getMessage(), e);
    }
  }

  /** A client-side context presenting {@code files}' certificate and trusting only its CA. */
  public static SslContext clientContext(TlsFiles files) {
    files.requireReadable();
    try {
      return GrpcSslContexts.forClient()
          .trustManager(file(files.caCert()))
          .keyManager(file(files.certChain()), file(files.privateKey()))
          .protocols(TlsFiles.PROTOCOL)
          .build();
    } catch (SSLException e) {
      throw new UncheckedIOException(new IOException("cannot load the TLS files " + files + ": " + e.getMessage(), e));
    }
  }

  private static File file(java.nio.file.Path p) {
    return p.toFile();
  }

  public SslContext server() {
    return server;
  }

  public SslContext client() {
    return client;
  }

  /** The files this node's TLS was loaded from (the consensus adapter gives its own transport the same). */
  public TlsFiles files() {
    return files;
  }
}
