package dev.rangekv.cli.cert;

import dev.rangekv.cli.cluster.CliException;
import dev.rangekv.proto.tls.TlsFiles;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code rangekv cert create-ca|create-node|create-client}: the cluster's certificates, as PEM files in
 * a certificates directory (see {@link TlsFiles} for the layout).
 */
@Command(name = "cert", mixinStandardHelpOptions = true,
    description = "Make the CA, node and client certificates of a secure cluster.",
    subcommands = {CertCommand.CreateCa.class, CertCommand.CreateNode.class, CertCommand.CreateClient.class})
public final class CertCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing subcommand (create-ca, create-node, create-client)");
  }

  /** Options every cert subcommand shares. */
  static final class Common {
    @Option(names = "--certs-dir", paramLabel = "DIR", defaultValue = "${env:RANGEKV_CERTS_DIR}",
        description = "the certificates directory (default: $RANGEKV_CERTS_DIR)")
    Path certsDir;

    @Option(names = "--ca-key", paramLabel = "FILE",
        description = "the CA's private key (default: DIR/ca.key; keep it off the nodes' machines)")
    Path caKey;

    @Option(names = "--lifetime-days", paramLabel = "DAYS",
        description = "how long the certificate is valid (default: 365 days; the CA: 3650)")
    Integer lifetimeDays;

    @Option(names = "--overwrite", description = "replace existing files")
    boolean overwrite;

    Path dir() throws IOException {
      if (certsDir == null) {
        throw CliException.invalidInput("--certs-dir (or RANGEKV_CERTS_DIR) is required", null);
      }
      Files.createDirectories(certsDir);
      return certsDir;
    }

    Path caKey() throws IOException {
      return caKey != null ? caKey : dir().resolve(TlsFiles.CA_KEY);
    }

    Duration lifetime(int defaultDays) {
      int days = lifetimeDays == null ? defaultDays : lifetimeDays;
      if (days <= 0) {
        throw CliException.invalidInput("--lifetime-days must be positive: " + days, null);
      }
      return Duration.ofDays(days);
    }

    Certificates.Authority authority() throws IOException, GeneralSecurityException {
      return Certificates.readAuthority(dir().resolve(TlsFiles.CA_CERT), caKey());
    }
  }

  /** Runs a subcommand body, turning file and crypto failures into one-line errors. */
  interface Body {
    void run(PrintWriter out) throws IOException, GeneralSecurityException;
  }

  static int run(CommandLine.Model.CommandSpec spec, Body body) {
    try {
      body.run(spec.commandLine().getOut());
      spec.commandLine().getOut().flush();
      return 0;
    } catch (IOException | GeneralSecurityException e) {
      throw new CliException(e.getMessage(), e);
    } catch (NoClassDefFoundError e) { // the thin jar has no Bouncy Castle: bin/rangekv runs cert with the full one
      throw new CliException("rangekv cert needs the full jar (rangekv.jar; bin/rangekv runs it): " + e.getMessage(), e);
    }
  }

  @Command(name = "create-ca", mixinStandardHelpOptions = true,
      description = "Make the cluster's CA: DIR/ca.crt (give it to every node and client) and its key.")
  static final class CreateCa implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Mixin
    Common common;

    @Override
    public Integer call() {
      return run(spec, out -> {
        Path dir = common.dir();
        Certificates.Authority ca = Certificates.newAuthority(common.lifetime(3650));
        Certificates.writeKey(common.caKey(), ca.key(), common.overwrite);
        Certificates.writeCertificate(dir.resolve(TlsFiles.CA_CERT), ca.certificate(), common.overwrite);
        out.println("wrote " + dir.resolve(TlsFiles.CA_CERT) + " and " + common.caKey());
      });
    }
  }

  @Command(name = "create-node", mixinStandardHelpOptions = true,
      description = "Make a node certificate (CN=node) for the host names and IPs its peers and clients dial.")
  static final class CreateNode implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Mixin
    Common common;
    @Parameters(arity = "1..*", paramLabel = "HOST", description = "host names and IP addresses of the node")
    List<String> hosts;

    @Override
    public Integer call() {
      return run(spec, out -> {
        Path dir = common.dir();
        TlsFiles files = TlsFiles.node(dir);
        Certificates.Issued issued = Certificates.issue(common.authority(), TlsFiles.NODE_USER, hosts, common.lifetime(365));
        Certificates.writeKey(files.privateKey(), issued.key(), common.overwrite);
        Certificates.writeCertificate(files.certChain(), issued.certificate(), common.overwrite);
        out.println("wrote " + files.certChain() + " and " + files.privateKey() + " for " + String.join(", ", hosts));
      });
    }
  }

  @Command(name = "create-client", mixinStandardHelpOptions = true,
      description = "Make a client certificate for user NAME (CN=NAME); 'root' has the admin role.")
  static final class CreateClient implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Mixin
    Common common;
    @Parameters(paramLabel = "NAME", description = "the user name")
    String user;

    @Override
    public Integer call() {
      if (!user.matches("[A-Za-z0-9_][A-Za-z0-9_.-]{0,62}") || user.equals(TlsFiles.NODE_USER)) {
        throw CliException.invalidInput("user name '" + user + "' is not allowed (letters, digits, _ . -; '"
            + TlsFiles.NODE_USER + "' is reserved for nodes)", null);
      }
      return run(spec, out -> {
        Path dir = common.dir();
        TlsFiles files = TlsFiles.client(dir, user);
        Certificates.Issued issued = Certificates.issue(common.authority(), user, List.of(), common.lifetime(365));
        Certificates.writeKey(files.privateKey(), issued.key(), common.overwrite);
        Certificates.writeCertificate(files.certChain(), issued.certificate(), common.overwrite);
        out.println("wrote " + files.certChain() + " and " + files.privateKey());
      });
    }
  }
}
