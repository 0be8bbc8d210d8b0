package dev.rangekv.server.ratis;

import dev.rangekv.proto.tls.TlsFiles;
import java.io.File;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.security.TlsConf;

/**
 * Ratis' parameters for a node's TLS files: mutual TLS 1.3 for its gRPC server, log appenders and
 * clients, and a server that serves only nodes ({@link RaftPeerCheck}). Stateless.
 */
public final class RatisTls {
  private RatisTls() {}

  /** Ratis' parameters: TLS for its server, its log appenders and its clients; only nodes may call its server. */
  public static Parameters parameters(TlsFiles files) {
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

  private static File file(java.nio.file.Path p) {
    return p.toFile();
  }
}
