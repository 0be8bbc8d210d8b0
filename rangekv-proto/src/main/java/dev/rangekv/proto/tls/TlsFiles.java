package dev.rangekv.proto.tls;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The PEM files of one TLS identity in a certificates directory, laid out as CockroachDB does:
 * {@code ca.crt} (the cluster's CA, the only one trusted), {@code node.crt}/{@code node.key} (a node:
 * CN {@value #NODE_USER}, its host names and IPs as SANs) and {@code client.USER.crt}/{@code client.USER.key}
 * (a user: CN = the user name). Keys are unencrypted PKCS#8. Immutable.
 *
 * @param caCert the CA certificate peers are checked against
 * @param certChain this party's certificate (chain)
 * @param privateKey this party's private key
 */
public record TlsFiles(Path caCert, Path certChain, Path privateKey) {
  /** The CA certificate's file name. */
  public static final String CA_CERT = "ca.crt";
  /** The CA key's default file name (keep it out of the certs directory of running nodes). */
  public static final String CA_KEY = "ca.key";
  /** The common name of every node certificate; no user may take it. */
  public static final String NODE_USER = "node";
  /** The user with the admin role (cluster changes: split, merge, move, presplit, node remove). */
  public static final String ADMIN_USER = "root";
  /** The only TLS version served and spoken. */
  public static final String PROTOCOL = "TLSv1.3";

  public TlsFiles {
    Objects.requireNonNull(caCert, "caCert");
    Objects.requireNonNull(certChain, "certChain");
    Objects.requireNonNull(privateKey, "privateKey");
  }

  /** A node's identity in {@code dir}: {@code ca.crt}, {@code node.crt}, {@code node.key}. */
  public static TlsFiles node(Path dir) {
    return new TlsFiles(dir.resolve(CA_CERT), dir.resolve("node.crt"), dir.resolve("node.key"));
  }

  /** User {@code user}'s identity in {@code dir}: {@code ca.crt}, {@code client.USER.crt}, {@code client.USER.key}. */
  public static TlsFiles client(Path dir, String user) {
    return new TlsFiles(dir.resolve(CA_CERT), dir.resolve("client." + user + ".crt"), dir.resolve("client." + user + ".key"));
  }

  /**
   * This identity if all three files are readable; otherwise an {@link IllegalArgumentException} naming the
   * first missing file (one line for people).
   */
  public TlsFiles requireReadable() {
    for (Path p : new Path[] {caCert, certChain, privateKey}) {
      if (!Files.isReadable(p)) {
        throw new IllegalArgumentException("certificate file " + p + " is missing or unreadable (make it with 'rangekv cert')");
      }
    }
    return this;
  }
}
