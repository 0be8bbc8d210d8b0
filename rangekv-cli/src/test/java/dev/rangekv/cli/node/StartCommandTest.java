package dev.rangekv.cli.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.cli.CliRun;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code start}'s argument checks: all of them fail before a node starts (exit 2, one line). */
class StartCommandTest {
  @TempDir
  Path dir;

  private CliRun start(String... extra) {
    String[] base = {"start", "--node-id", "n1", "--listen", "127.0.0.1:7101", "--data-dir", dir.resolve("n1").toString(),
        "--insecure"};
    String[] all = new String[base.length + extra.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(extra, 0, all, base.length, extra.length);
    return CliRun.of(all);
  }

  @Test
  void missingRequiredOptions_isAUsageError() {
    CliRun r = CliRun.of("start", "--node-id", "n1");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).startsWith("error: Missing required options: '--listen=HOST:PORT', '--data-dir=DIR'");
  }

  @Test
  void badAddress_isAUsageError() {
    CliRun r = CliRun.of("start", "--node-id", "n1", "--listen", "nowhere", "--data-dir", "x");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("'nowhere' is not HOST:PORT");
  }

  @Test
  void advertise_mustMatchTheListenAddress_unlessItIsAWildcard() {
    CliRun r = start("--advertise", "10.0.0.5:7101");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("--advertise 10.0.0.5:7101 must name the --listen port 7101");
    CliRun wildcard = CliRun.of("start", "--node-id", "n1", "--listen", "0.0.0.0:7101", "--data-dir", "x");
    assertThat(wildcard.exit()).isEqualTo(2);
    assertThat(wildcard.err()).contains("is a wildcard: give --advertise HOST:7101");
  }

  @Test
  void withoutCertificates_startRefuses_unlessInsecureIsGiven() {
    CliRun r = CliRun.of("start", "--node-id", "n1", "--listen", "127.0.0.1:7101", "--data-dir", dir.resolve("n1").toString());
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("no --certs-dir (or RANGEKV_CERTS_DIR)", "--insecure");
    assertThat(dir.resolve("n1")).doesNotExist();
    CliRun both = start("--certs-dir", dir.toString());
    assertThat(both.exit()).isEqualTo(2);
    assertThat(both.err()).contains("--certs-dir and --insecure exclude each other");
    CliRun missing = CliRun.of("start", "--node-id", "n1", "--listen", "127.0.0.1:7101", "--data-dir",
        dir.resolve("n1").toString(), "--certs-dir", dir.resolve("none").toString());
    assertThat(missing.exit()).isEqualTo(2);
    assertThat(missing.err()).contains("ca.crt is missing or unreadable");
  }

  @Test
  void raftPort_mustDifferFromTheClientPort() {
    CliRun r = start("--raft-listen", "127.0.0.1:7101");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("--raft-listen port must differ");
  }

  @Test
  void controllerSettings_areValidated_namingTheSetting() {
    CliRun unknown = start("--set", "range.colour=blue");
    assertThat(unknown.exit()).isEqualTo(2);
    assertThat(unknown.err()).contains("unknown controller setting range.colour");
    CliRun clash = start("--set", "range.max-bytes=1000", "--set", "range.min-bytes=900");
    assertThat(clash.exit()).isEqualTo(2);
    assertThat(clash.err()).contains("range.min-bytes=900 must be at most 3/8 of range.max-bytes=1000");
  }

  @Test
  void nodeEntriesInFlight_boundsTheNodesRaftEntries_andMustNotBeNegative() {
    CliRun negative = start("--node-entries-in-flight", "-1");
    assertThat(negative.exit()).isEqualTo(2);
    assertThat(negative.err()).contains("--node-entries-in-flight -1 must be 0 (no bound) or more");
    StartCommand cmd = new StartCommand();
    new picocli.CommandLine(cmd).parseArgs("--node-id", "n1", "--listen", "127.0.0.1:7101", "--data-dir",
        dir.resolve("n1").toString(), "--insecure", "--node-entries-in-flight", "2");
    assertThat(cmd.nodeConfig().tuning().nodeEntriesInFlight()).isEqualTo(2);
    StartCommand byDefault = new StartCommand();
    new picocli.CommandLine(byDefault).parseArgs("--node-id", "n1", "--listen", "127.0.0.1:7101", "--data-dir",
        dir.resolve("n1").toString(), "--insecure");
    assertThat(byDefault.nodeConfig().tuning().nodeEntriesInFlight()).isZero();
  }

  @Test
  void dataDirThatIsAFile_isAUsageError() throws Exception {
    Path file = Files.writeString(dir.resolve("file"), "x");
    CliRun r = CliRun.of("start", "--node-id", "n1", "--listen", "127.0.0.1:7101", "--data-dir", file.toString(),
        "--insecure");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("is not a directory");
  }

  @Test
  void hostPort_parsesIpv6AndRejectsBadPorts() {
    assertThat(HostPort.parse("[::1]:7001")).isEqualTo(new HostPort("::1", 7001));
    assertThat(HostPort.parse("[::1]:7001").toString()).isEqualTo("[::1]:7001");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> HostPort.parse("h:70000"))
        .hasMessageContaining("port must be in [1, 65535]");
  }
}
