package dev.rangekv.cli.kv;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.cli.CliRun;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class QuickKvTest {

  private static QuickKv.Parsed parse(String... args) {
    return QuickKv.parse(args);
  }

  @Test
  void usualKvCommandLines_areParsedByHand() {
    assertThat(parse("get", "k", "--cluster", "127.0.0.1:1")).isEqualTo(
        new QuickKv.Parsed("get", List.of("k"), Map.of("--cluster", "127.0.0.1:1"), Set.of()));
    assertThat(parse("--verbose", "put", "--json", "k", "v", "--timeout=2s")).isEqualTo(
        new QuickKv.Parsed("put", List.of("k", "v"), Map.of("--timeout", "2s"), Set.of("--verbose", "--json")));
    assertThat(parse("scan", "--from", "a", "--reverse", "--limit", "5")).isEqualTo(
        new QuickKv.Parsed("scan", List.of(), Map.of("--from", "a", "--limit", "5"), Set.of("--reverse")));
    assertThat(parse("del", "", "--insecure", "--hex").positionals()).containsExactly("");
  }

  @Test
  void helpErrorsAndUnusualForms_areLeftToPicocli() {
    for (String[] args : List.of(
        new String[] {"get", "k", "--help"}, new String[] {"get", "-h"}, new String[] {"--version"},
        new String[] {"ranges"}, new String[] {"help", "get"}, new String[] {"get", "k", "--bogus"},
        new String[] {"get", "k", "--json", "--json"}, new String[] {"get", "k", "--cluster", "a:1", "--cluster=b:2"},
        new String[] {"get", "k", "--cluster"}, new String[] {"get", "--", "-k"}, new String[] {"get", "-k"},
        new String[] {"get", "k", "--json=true"}, new String[] {"get", "k", "--timeout", "-1"},
        new String[] {"get", "k", "--user="}, new String[] {"put", "k", "--from", "a"},
        new String[] {"get", "k", "--reverse"}, new String[] {"--cluster", "a:1", "get", "k"})) {
      assertThat(parse(args)).as(String.join(" ", args)).isNull();
    }
  }

  @Test
  void usageErrorsFoundByTheCommand_areReportedByPicocli_asBefore() throws IOException {
    String cluster = "127.0.0.1:" + closedPort();
    for (String[] args : List.of(
        new String[] {"get"}, new String[] {"get", "a", "b"}, new String[] {"put", "k"},
        new String[] {"put", "k", "v", "--value-file", "f"}, new String[] {"get", "--hex", "zz12"},
        new String[] {"get", "k", "--timeout", "0"}, new String[] {"get", "k", "--timeout", "soon"},
        new String[] {"scan", "--limit", "x"}, new String[] {"scan", "--from-cursor", "not-a-cursor!"},
        new String[] {"get", "k", "--cluster", "localhost"})) {
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      String[] withCluster = args[args.length - 1].equals("localhost") ? args : append(args, "--cluster", cluster);
      assertThat(QuickKv.run(withCluster, new PrintWriter(out), new PrintWriter(err))).as(String.join(" ", args)).isEmpty();
      assertThat(out.toString() + err).isEmpty(); // nothing printed: picocli reports it
      CliRun r = CliRun.of(withCluster);
      assertThat(r.exit()).as(r.toString()).isEqualTo(2);
      assertThat(r).isEqualTo(CliRun.picocli(withCluster));
    }
  }

  @Test
  void aFailedCall_printsOneLine_asPicocliDoes() throws IOException {
    // a short --timeout: connecting honours it, so the three runs below do not wait seconds each
    String[] args = {"get", "k", "--cluster", "127.0.0.1:" + closedPort(), "--timeout", "300ms"};
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    assertThat(QuickKv.run(args, new PrintWriter(out), new PrintWriter(err))).hasValue(1);
    assertThat(err.toString()).startsWith("error: cannot reach the cluster at ").hasLineCount(1);
    assertThat(new CliRun(1, out.toString(), err.toString())).isEqualTo(CliRun.picocli(args));
    StringWriter verbose = new StringWriter();
    QuickKv.run(append(args, "--verbose"), new PrintWriter(new StringWriter()), new PrintWriter(verbose));
    assertThat(verbose.toString()).contains("at dev.rangekv.cli.");
  }

  private static String[] append(String[] args, String... more) {
    String[] all = java.util.Arrays.copyOf(args, args.length + more.length);
    System.arraycopy(more, 0, all, args.length, more.length);
    return all;
  }

  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
