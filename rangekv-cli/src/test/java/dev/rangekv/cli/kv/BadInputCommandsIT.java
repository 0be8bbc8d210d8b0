package dev.rangekv.cli.kv;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.cli.CliRun;
import dev.rangekv.cli.OneNodeCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad input to the KV commands: each gets one line and exit 2 (the README's rule: invalid
 * input, nothing written) or the right result; nothing is written.
 */
@Timeout(120)
class BadInputCommandsIT {
  @RegisterExtension
  static final OneNodeCluster CLUSTER = new OneNodeCluster();

  private static CliRun run(String... args) {
    return CLUSTER.run(args);
  }

  private static void invalid(CliRun r, String... parts) {
    assertThat(r.exit()).as(r.toString()).isEqualTo(2);
    assertThat(r.err()).as(r.toString()).startsWith("error: ").contains(parts);
    assertThat(r.err()).doesNotContain("\tat ");
  }

  private static void notFound(String key) {
    CliRun get = run("get", key);
    assertThat(get.exit()).as(get.toString()).isEqualTo(1);
    assertThat(get.err()).contains("key not found");
  }

  @Test
  void aValueStartingWithAt_isStoredAsTyped_andValueFileReadsAFile() throws Exception {
    Path file = Files.writeString(CLUSTER.dir().resolve("value.txt"), "from a file");
    assertThat(run("put", "at/1", "@" + file).exit()).isZero();
    assertThat(run("get", "at/1").out()).isEqualTo("@" + file + "\n");
    assertThat(run("put", "at/2", "--value-file", file.toString()).exit()).isZero();
    assertThat(run("get", "at/2").out()).isEqualTo("from a file\n");
    CliRun both = run("put", "at/3", "v", "--value-file", file.toString());
    assertThat(both.exit()).isEqualTo(2);
    assertThat(both.err()).contains("give either VALUE or --value-file FILE");
    assertThat(run("put", "at/3").exit()).isEqualTo(2);
    notFound("at/3");
    // a key starting with @ is a key, not a file
    assertThat(run("put", "@" + file, "x").exit()).isZero();
    assertThat(run("get", "@" + file).out()).isEqualTo("x\n");
  }

  @Test
  void scan_fromAfterTo_isInvalid_likeOnTheServer() {
    assertThat(run("put", "b", "1").exit()).isZero();
    invalid(run("scan", "--from", "b", "--to", "a"), "scan.bounds", "--from \"b\" is after --to \"a\"");
    invalid(run("scan", "--from", "b", "--to", "a", "--reverse"), "scan.bounds");
    assertThat(run("scan", "--from", "b", "--to", "b").out()).isEqualTo("-- 0 entries; end of scan\n");
  }

  @Test
  void emptyAndOversizedKeys_andOversizedValues_exit2_withTheKeyCut() throws Exception {
    invalid(run("put", "", "v"), "key.empty");
    String big = "k".repeat(9000);
    CliRun key = run("put", big, "v");
    invalid(key, "key.max-bytes", "\"" + "k".repeat(64) + "...\"(9000 bytes)", "8 KiB");
    assertThat(key.err()).doesNotContain("k".repeat(65)).hasLineCount(1);
    Path twoMib = CLUSTER.dir().resolve("two-mib");
    Files.write(twoMib, new byte[2 << 20]);
    invalid(run("put", "v/big", "--value-file", twoMib.toString()), "value.max-bytes", "1 MiB");
    notFound("v/big");
    Path justOver = CLUSTER.dir().resolve("just-over");
    Files.write(justOver, new byte[(1 << 20) + 1]);
    invalid(run("put", "v/over", "--value-file", justOver.toString()), "value.max-bytes");
    notFound("v/over");
  }

  @Test
  void aZeroTimeout_namesTheOptionAsTyped() {
    CliRun r = run("get", "k", "--timeout", "0s");
    invalid(r, "--timeout must be positive, got 0s");
    assertThat(r.err()).doesNotContain("attemptTimeout");
  }
}
