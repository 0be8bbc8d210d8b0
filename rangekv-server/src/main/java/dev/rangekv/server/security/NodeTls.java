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
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.security.TlsConf;

/**
 * A node's mutual TLS (TLS 1.3 only) from its {@link TlsFiles}: the client port's server context, the
 * context of its channels to other nodes, and Ratis' parameters (its gRPC server and clients use the same
 * files, and its server refuses every peer but nodes). Immutable.
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

  /** Ratis' parameters: TLS for its server, its log appenders and its clients; only nodes may call its server. */
  public Parameters raftParameters() {
    Parameters p = new Parameters();
    GrpcTlsConfig tls = GrpcTlsConfig.newBuilder()
        .setName("rangekv-raft")
        .setPrivateKey(new TlsConf.PrivateKeyConf(file(files.privateKey())))
        .setKeyCertificates(new TlsConf.CertificatesConf(file(files.certChain())))
        .setTrustCertificates(new TlsConf.CertificatesConf(file(files.caCert())))
        .setMutualTls(true)
        .setProtocols(TlsFiles.PROTOCOL)
        .build();
    GrpcConfigKeys.TLS.setConf(p, tls);
    RaftPeerCheck check = new RaftPeerCheck();
    GrpcConfigKeys.Server.setServicesCustomizer(p, (builder, types) -> builder.intercept(check));
    return p;
  }
}
