package dev.rangekv.server.security;

import dev.rangekv.proto.tls.TlsFiles;
import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * Who a TLS peer is, from the certificate it presented (the TLS layer has already checked it chains to
 * the cluster's CA): a node (CN {@code node} with server-auth usage, as {@code rangekv cert create-node}
 * makes them) or user CN.
 *
 * @param name the certificate's common name
 * @param node whether it is a node certificate
 */
public record PeerIdentity(String name, boolean node) {
  private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";

  /** Whether this peer may make a call needing {@code role}. */
  public boolean has(Role role) {
    return switch (role) {
      case CLIENT -> true;
      case ADMIN -> node || name.equals(TlsFiles.ADMIN_USER);
      case NODE -> node;
    };
  }

  /** The peer of {@code session}; empty without a session or a certificate. */
  public static Optional<PeerIdentity> of(SSLSession session) {
    if (session == null) {
      return Optional.empty();
    }
    try {
      Certificate[] chain = session.getPeerCertificates();
      return chain.length > 0 && chain[0] instanceof X509Certificate x ? Optional.of(of(x)) : Optional.empty();
    } catch (SSLPeerUnverifiedException e) {
      return Optional.empty();
    }
  }

  /** The identity {@code cert} carries. */
  public static PeerIdentity of(X509Certificate cert) {
    String cn = commonName(cert);
    boolean serverAuth;
    try {
      List<String> usages = cert.getExtendedKeyUsage();
      serverAuth = usages != null && usages.contains(SERVER_AUTH);
    } catch (CertificateParsingException e) {
      serverAuth = false;
    }
    return new PeerIdentity(cn, cn.equals(TlsFiles.NODE_USER) && serverAuth);
  }

  private static String commonName(X509Certificate cert) {
    try {
      for (Rdn rdn : new LdapName(cert.getSubjectX500Principal().getName()).getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN")) {
          return String.valueOf(rdn.getValue());
        }
      }
    } catch (InvalidNameException e) {
      // no parsable subject: no name
    }
    return "";
  }
}
