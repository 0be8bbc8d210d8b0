package dev.rangekv.cli.kv;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.cli.CliRun;
import dev.rangekv.cli.OneNodeCluster;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** put/get/del/scan against a one-node in-JVM cluster. */
@Timeout(120)
class KvCommandsIT {
  @RegisterExtension
  static final OneNodeCluster CLUSTER = new OneNodeCluster();

  private static CliRun run(String... args) {
    return CLUSTER.run(args);
  }

  private static void ok(CliRun r) {
    assertThat(r.exit()).as(r.toString()).isZero();
  }

  @Test
  void put_get_del_roundTrip() {
    ok(run("put", "greeting", "hello world"));
    CliRun get = run("get", "greeting");
    ok(get);
    assertThat(get.out()).isEqualTo("hello world\n");
    ok(run("del", "greeting"));
    CliRun missing = run("get", "greeting");
    assertThat(missing.exit()).isEqualTo(1);
    assertThat(missing.err()).isEqualTo("error: key not found: greeting\n");
    assertThat(run("get", "greeting", "--json").out()).isEqualTo("{\"key\":\"greeting\",\"found\":false,\"value\":null}\n");
  }

  @Test
  void hexKeysAndValues_areRawBytes() {
    ok(run("put", "--hex", "00ff01", "0a0b"));
    assertThat(run("get", "--hex", "00ff01").out()).isEqualTo("0x0a0b\n");
    assertThat(run("get", "--hex", "00ff01", "--json").out()).isEqualTo("{\"key\":\"00ff01\",\"found\":true,\"value\":\"0a0b\"}\n");
  }

  @Test
  void scan_pagesWithACursor_inBothDirections() {
    for (int i = 0; i < 5; i++) {
      ok(run("put", "s/" + i, "v" + i));
    }
    CliRun first = run("scan", "--from", "s/", "--to", "s0", "--limit", "2");
    ok(first);
    assertThat(first.out()).startsWith("s/0\tv0\ns/1\tv1\n-- 2 entries; more after --from-cursor ");
    String cursor = cursorOf(first.out());
    CliRun rest = run("scan", "--from", "s/", "--to", "s0", "--from-cursor", cursor);
    ok(rest);
    assertThat(rest.out()).isEqualTo("s/2\tv2\ns/3\tv3\ns/4\tv4\n-- 3 entries; end of scan\n");

    CliRun reverse = run("scan", "--from", "s/", "--to", "s0", "--reverse", "--limit", "1");
    assertThat(reverse.out()).startsWith("s/4\tv4\n");
    CliRun next = run("scan", "--from", "s/", "--to", "s0", "--limit", "1", "--from-cursor", cursorOf(reverse.out()));
    assertThat(next.out()).startsWith("s/3\tv3\n");

    CliRun json = run("scan", "--from", "s/3", "--to", "s0", "--json");
    assertThat(json.out()).isEqualTo(
        "{\"entries\":[{\"key\":\"s/3\",\"value\":\"v3\"},{\"key\":\"s/4\",\"value\":\"v4\"}],\"cursor\":null}\n");
  }

  @Test
  void scan_withAForeignCursor_isAUsageError() {
    CliRun r = run("scan", "--from-cursor", "not-a-cursor!");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).startsWith("error: --from-cursor: not a scan cursor");
  }

  @Test
  void theFastPath_printsAndExitsAsPicocliDoes() {
    ok(run("put", "same", "value"));
    for (String[] args : new String[][] {
        {"put", "same", "value"}, {"put", "--json", "same", "value"}, {"get", "same"}, {"get", "same", "--json"},
        {"get", "--hex", "73616d65"}, {"get", "absent"}, {"get", "absent", "--json"}, {"del", "gone"},
        {"scan", "--from", "s", "--to", "t", "--limit", "1"}, {"scan", "--reverse", "--json"},
        {"put", "", "v"}, {"get", "k", "--certs-dir", CLUSTER.dir().resolve("none").toString()}}) {
      CliRun fast = run(args);
      CliRun picocli = CLUSTER.runPicocli(args);
      assertThat(fast).as(String.join(" ", args)).isEqualTo(picocli);
    }
  }

  private static String cursorOf(String out) {
    Matcher m = Pattern.compile("--from-cursor (\\S+)").matcher(out);
    assertThat(m.find()).as(out).isTrue();
    return m.group(1);
  }
}
