package dev.rangekv.cli.cluster;

import dev.rangekv.proto.tls.TlsFiles;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * How a command reaches a cluster: mutual TLS with user {@code --user}'s certificate from {@code --certs-dir}
 * (or {@code $RANGEKV_CERTS_DIR}), or plaintext for an insecure cluster ({@code --insecure}, or no
 * certificates directory at all). A picocli mixin.
 */
public final class TlsOptions {
  @Option(names = "--certs-dir", paramLabel = "DIR", defaultValue = "${env:RANGEKV_CERTS_DIR}",
      description = "certificates directory: ca.crt and client.USER.crt/.key (default: $RANGEKV_CERTS_DIR)")
  Path certsDir;

  @Option(names = "--user", paramLabel = "NAME", defaultValue = "root",
      description = "whose client certificate to present (default ${DEFAULT-VALUE}, the admin)")
  String user;

  @Option(names = "--insecure", description = "plaintext, for an insecure cluster (wins over $RANGEKV_CERTS_DIR)")
  boolean insecure;

  /** The client's TLS files, or empty for plaintext; a missing file is a one-line error naming it. */
  public Optional<TlsFiles> files() {
    if (insecure || certsDir == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(TlsFiles.client(certsDir, user).requireReadable());
    } catch (IllegalArgumentException e) {
      throw new CliException(e.getMessage() + "; for user " + user + " run 'rangekv cert create-client " + user + "'", e);
    }
  }
}
