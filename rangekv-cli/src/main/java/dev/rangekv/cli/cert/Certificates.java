package dev.rangekv.cli.cert;

import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Makes the cluster's certificates with BouncyCastle (EC P-256 keys, SHA-256 ECDSA signatures) and
 * reads and writes them as PEM: a self-signed CA, node certificates (CN {@code node}, server and
 * client auth, host names and IPs as SANs) and user certificates (CN = user name, client auth only).
 * Private keys are written unencrypted as PKCS#8 with owner-only permissions.
 */
final class Certificates {
  private static final String ORGANIZATION = "RangeKV";
  private static final SecureRandom RANDOM = new SecureRandom();

  private Certificates() {
  }

  /** A CA's certificate and key. */
  record Authority(X509Certificate certificate, PrivateKey key) {
  }

  /** A signed certificate and its key. */
  record Issued(X509Certificate certificate, PrivateKey key) {
  }

  static Authority newAuthority(Duration lifetime) throws GeneralSecurityException, IOException {
    KeyPair pair = newKeyPair();
    X500Name name = name("RangeKV CA");
    Instant from = validFrom();
    X509v3CertificateBuilder b = builder(name, name, pair, from, from.plus(lifetime));
    JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
    b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    b.addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(pair.getPublic()));
    return new Authority(sign(b, pair.getPrivate()), pair.getPrivate());
  }

  /** A certificate with common name {@code cn}; {@code hosts} non-empty makes it a node's (SANs, server auth). */
  static Issued issue(Authority ca, String cn, List<String> hosts, Duration lifetime) throws GeneralSecurityException, IOException {
    Instant from = validFrom();
    return issue(ca, cn, hosts, from, from.plus(lifetime));
  }

  /** As {@link #issue(Authority, String, List, Duration)}, valid from {@code from} until {@code until}. */
  static Issued issue(Authority ca, String cn, List<String> hosts, Instant from, Instant until)
      throws GeneralSecurityException, IOException {
    KeyPair pair = newKeyPair();
    X509v3CertificateBuilder b = builder(X500Name.getInstance(ca.certificate().getSubjectX500Principal().getEncoded()),
        name(cn), pair, from, until);
    JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
    b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
    b.addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(pair.getPublic()));
    b.addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(ca.certificate()));
    if (hosts.isEmpty()) {
      b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth));
    } else {
      b.addExtension(Extension.extendedKeyUsage, false,
          new ExtendedKeyUsage(new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
      List<GeneralName> names = new ArrayList<>();
      for (String h : hosts) {
        names.add(isIpLiteral(h) ? new GeneralName(GeneralName.iPAddress, h) : new GeneralName(GeneralName.dNSName, h));
      }
      b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names.toArray(GeneralName[]::new)));
    }
    return new Issued(sign(b, ca.key()), pair.getPrivate());
  }

  /** Whether {@code host} is an IPv4 or IPv6 literal (never resolved: a name stays a DNS SAN). */
  static boolean isIpLiteral(String host) {
    if (host.matches("\\d{1,3}(\\.\\d{1,3}){3}") || host.contains(":")) {
      try {
        InetAddress.getByName(host); // a literal is parsed, not looked up
        return true;
      } catch (IOException e) {
        return false;
      }
    }
    return false;
  }

  private static X500Name name(String cn) {
    return new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.O, ORGANIZATION).addRDN(BCStyle.CN, cn).build();
  }

  /** A minute back: clocks of the nodes checking a new certificate may run a little behind this machine's. */
  private static Instant validFrom() {
    return Instant.now().minus(Duration.ofMinutes(1));
  }

  private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair pair, Instant from,
      Instant until) {
    return new JcaX509v3CertificateBuilder(issuer, new BigInteger(127, RANDOM).add(BigInteger.ONE), Date.from(from),
        Date.from(until), subject, pair.getPublic());
  }

  private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey key) throws GeneralSecurityException {
    try {
      return new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key)));
    } catch (OperatorCreationException e) {
      throw new GeneralSecurityException("cannot sign with the CA key: " + e.getMessage(), e);
    }
  }

  private static KeyPair newKeyPair() throws GeneralSecurityException {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
    return g.generateKeyPair();
  }

  /** Reads the CA certificate and key written by {@code create-ca}. */
  static Authority readAuthority(Path cert, Path key) throws IOException, GeneralSecurityException {
    Object c = readPem(cert);
    Object k = readPem(key);
    if (!(c instanceof X509CertificateHolder holder)) {
      throw new IOException(cert + " holds no PEM certificate");
    }
    if (!(k instanceof PrivateKeyInfo info)) {
      throw new IOException(key + " holds no unencrypted PKCS#8 private key");
    }
    return new Authority(new JcaX509CertificateConverter().getCertificate(holder), new JcaPEMKeyConverter().getPrivateKey(info));
  }

  private static Object readPem(Path file) throws IOException {
    if (!Files.isReadable(file)) {
      throw new IOException(file + " is missing or unreadable (make the CA with 'rangekv cert create-ca')");
    }
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.US_ASCII); PEMParser p = new PEMParser(r)) {
      return p.readObject();
    }
  }

  /** Writes {@code cert} as PEM; refuses to replace a file unless {@code overwrite}. */
  static void writeCertificate(Path file, X509Certificate cert, boolean overwrite) throws IOException {
    write(file, pem(cert), overwrite, false);
  }

  /** Writes {@code key} as unencrypted PKCS#8 PEM, readable by its owner only. */
  static void writeKey(Path file, PrivateKey key, boolean overwrite) throws IOException {
    write(file, pem(new JcaPKCS8Generator(key, null).generate()), overwrite, true);
  }

  private static String pem(Object o) throws IOException {
    StringWriter s = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(s)) {
      w.writeObject(o);
    }
    return s.toString();
  }

  private static void write(Path file, String text, boolean overwrite, boolean secret) throws IOException {
    if (!overwrite && Files.exists(file)) {
      throw new FileAlreadyExistsException(file + " exists (pass --overwrite to replace it)");
    }
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.deleteIfExists(tmp);
    Files.createFile(tmp);
    if (secret && Files.getFileStore(tmp).supportsFileAttributeView("posix")) {
      Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
    }
    Files.writeString(tmp, text, StandardCharsets.US_ASCII, StandardOpenOption.TRUNCATE_EXISTING);
    Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }
}
