package dev.rangekv.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Command;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class RangeKvCommandTest {

  @Test
  void noSubcommand_isAUsageError() {
    CliRun r = CliRun.of();
    assertThat(r.exit()).as(r.toString()).isEqualTo(2);
    assertThat(r.err()).startsWith("error: missing subcommand");
  }

  @Test
  void help_listsEveryCommand() {
    CliRun r = CliRun.of("--help");
    assertThat(r.exit()).isZero();
    for (String c : new String[] {"demo", "start", "put", "get", "del", "scan", "ranges", "nodes", "events", "why", "split",
        "merge", "move", "presplit", "sim", "cert"}) {
      assertThat(r.out()).contains("  " + c + " ");
    }
  }

  @Test
  void everySubcommand_isRegisteredUnderItsOwnName() {
    RangeKvCommand.commandLine().getSubcommands().forEach((name, sub) ->
        assertThat(sub.getCommandSpec().userObject().getClass().getAnnotation(Command.class).name()).isEqualTo(name));
  }

  @Test
  void aRunNamingACommand_buildsOnlyThatOne_otherRunsBuildAll() {
    assertThat(RangeKvCommand.commandLine(new String[] {"--verbose", "get", "k"}).getSubcommands().keySet())
        .containsExactly("get");
    assertThat(RangeKvCommand.commandLine(new String[] {"--help"}).getSubcommands())
        .containsKeys("help", "get", "put", "ranges", "completion", "demo", "start");
    assertThat(RangeKvCommand.commandLine(new String[] {"help", "get"}).getSubcommands()).containsKeys("help", "get", "put");
    assertThat(RangeKvCommand.commandLine(new String[] {"gte", "k"}).getSubcommands()).containsKeys("get", "put");
  }

  @Test
  void missingArgument_isAUsageError_inOneLinePlusHint() {
    CliRun r = CliRun.of("get");
    assertThat(r.exit()).as(r.toString()).isEqualTo(2);
    assertThat(r.err().lines().toList()).hasSize(2);
    assertThat(r.err()).contains("error: Missing required parameter: 'KEY'").contains("usage: rangekv get --help");
    // a put's value may come from a file instead, so its absence is checked by the command itself
    CliRun put = CliRun.of("put", "onlykey");
    assertThat(put.exit()).as(put.toString()).isEqualTo(2);
    assertThat(put.err().lines().toList()).hasSize(2);
    assertThat(put.err()).contains("error: give either VALUE or --value-file FILE").contains("usage: rangekv put --help");
  }

  @Test
  void badHexKey_isAUsageError_namingTheKey() {
    CliRun r = CliRun.of("get", "--hex", "zz12");
    assertThat(r.exit()).as(r.toString()).isEqualTo(2);
    assertThat(r.err()).startsWith("error: KEY: bad hex 'zz12'");
  }

  @Test
  void badClusterAddress_isAUsageError() {
    CliRun r = CliRun.of("ranges", "--cluster", "localhost");
    assertThat(r.exit()).as(r.toString()).isEqualTo(2);
    assertThat(r.err()).startsWith("error: --cluster address 'localhost' is not HOST:PORT");
  }

  @Test
  void badRangeId_isAUsageError() {
    CliRun r = CliRun.of("why", "rx");
    assertThat(r.exit()).as(r.toString()).isEqualTo(2);
    assertThat(r.err()).contains("'rx' is not a range id");
  }

  @Test
  void presplit_needsExactlyOneOfAtAndUniform() {
    assertThat(CliRun.of("presplit").exit()).isEqualTo(2);
    assertThat(CliRun.of("presplit", "--at", "a", "--uniform", "4").exit()).isEqualTo(2);
  }

  @Test
  void unreachableCluster_isAnErrorInOneLine_withoutStackTrace() throws IOException {
    int port = closedPort();
    // 1 s: long enough for a first refused attempt on a loaded machine (a cut-short attempt reads as a timeout)
    CliRun meta = CliRun.of("ranges", "--cluster", "127.0.0.1:" + port, "--timeout", "1s");
    assertThat(meta.exit()).as(meta.toString()).isEqualTo(1);
    assertThat(meta.err()).isEqualTo("error: cannot reach the cluster at 127.0.0.1:" + port
        + " (nothing listens at 127.0.0.1:" + port + ": connection refused)\n");

    CliRun kv = CliRun.of("get", "k", "--cluster", "127.0.0.1:" + port, "--timeout", "500ms");
    assertThat(kv.exit()).as(kv.toString()).isEqualTo(1);
    assertThat(kv.err().lines().toList()).hasSize(1);
    assertThat(kv.err()).startsWith("error: cannot reach the cluster at 127.0.0.1:" + port);
  }

  @Test
  void verbose_addsTheStackTrace() throws IOException {
    CliRun r = CliRun.of("nodes", "--cluster", "127.0.0.1:" + closedPort(), "--timeout", "1s", "--verbose");
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("error: cannot reach the cluster").contains("at dev.rangekv.cli.");
  }

  @Test
  void anUnknownCommand_isAUsageError_evenWithHelp() {
    for (String[] args : new String[][] {{"frobnicate", "--help"}, {"frobnicate"}, {"--verbose", "frobnicate", "-h"}}) {
      CliRun r = CliRun.of(args);
      assertThat(r.exit()).as(r.toString()).isEqualTo(2);
      assertThat(r.out()).as(r.toString()).isEmpty();
      assertThat(r.err()).as(r.toString())
          .isEqualTo("error: unknown command 'frobnicate' (rangekv --help lists the commands)\nusage: rangekv --help\n");
    }
    CliRun help = CliRun.of("get", "--help");
    assertThat(help.exit()).as(help.toString()).isZero();
    assertThat(help.out()).contains("Usage: rangekv get");
  }

  @Test
  void anUnknownSubcommandOfAGroup_isAUsageError_evenWithHelp() {
    for (String[] args : new String[][] {{"backup", "frobnicate", "--help"}, {"backup", "frobnicate"},
        {"cert", "-h", "frobnicate"}}) {
      CliRun r = CliRun.of(args);
      String group = args[0];
      assertThat(r.exit()).as(r.toString()).isEqualTo(2);
      assertThat(r.out()).as(r.toString()).isEmpty();
      assertThat(r.err()).as(r.toString()).isEqualTo("error: unknown command '" + group + " frobnicate' (rangekv "
          + group + " --help lists its commands)\nusage: rangekv " + group + " --help\n");
    }
    CliRun group = CliRun.of("backup", "--help");
    assertThat(group.exit()).as(group.toString()).isZero();
    assertThat(group.out()).contains("Usage: rangekv backup").contains("create");
    CliRun sub = CliRun.of("backup", "create", "--help");
    assertThat(sub.exit()).as(sub.toString()).isZero();
    assertThat(sub.out()).contains("Usage: rangekv backup create");
    CliRun help = CliRun.of("help", "backup");
    assertThat(help.exit()).as(help.toString()).isZero();
    assertThat(help.out()).contains("Usage: rangekv backup");
  }

  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
