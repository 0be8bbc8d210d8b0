package dev.rangekv.cli.dist;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.testkit.Await;
import dev.rangekv.server.node.NodeConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution archive as a user meets it: unpacked into a temp dir, {@code bin/rangekv} runs the
 * demo (its output shows splits, moves or leadership transfers and the monotonic-key alert, ends with
 * the summary, and the demo removes its temporary directory: the checks of the former
 * {@code DemoProcessIT}, which ran the same demo from the test classpath), and three {@code bin/rangekv start --config conf/...} processes (command-line options winning
 * over the file) form a cluster that the thin-jar commands talk to. Runs in the integration-test phase,
 * after {@code package} made the archive ({@code rangekv.dist} names it).
 */
@Timeout(420)
class DistributionIT {
  private static final Duration STEP = Duration.ofSeconds(90);

  @TempDir
  Path dir;

  private Path home;
  private final List<Process> processes = new ArrayList<>();
  private String javaOptsDefault;

  @BeforeEach
  void unpack() throws Exception {
    // C1 only and the serial collector, as process.CliProcess runs its test nodes: a node here lives a
    // minute on a 2-core box, where C2's compiles cost more CPU than they save (the launcher adds the same
    // to its one-shot commands itself)
    javaOptsDefault = "-Xmx512m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData -Djava.io.tmpdir=" + dir;
    Path archive = Path.of(System.getProperty("rangekv.dist", "target/rangekv-missing.tar.gz"));
    assertThat(archive).as("the archive mvn package makes").exists();
    Process tar = new ProcessBuilder("tar", "-xzf", archive.toString(), "-C", dir.toString()).inheritIO().start();
    assertThat(tar.waitFor(60, TimeUnit.SECONDS) && tar.exitValue() == 0).as("tar -xzf").isTrue();
    try (var entries = Files.list(dir)) {
      home = entries.filter(p -> p.getFileName().toString().startsWith("rangekv-")).findFirst().orElseThrow();
    }
    assertThat(home.resolve("bin/rangekv")).isExecutable();
    assertThat(home.resolve("lib/rangekv.jar")).exists();
    assertThat(home.resolve("lib/rangekv-thin.jar")).exists();
    assertThat(home.resolve("conf/rangekv-node.properties")).exists();
    assertThat(home.resolve("README")).content().contains("bin/rangekv demo");
  }

  @AfterEach
  void stop() throws InterruptedException {
    for (Process p : processes) {
      p.destroyForcibly();
      p.waitFor(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void demo_andThreeNodesFromTheConfigFile_runFromTheUnpackedArchive() throws Exception {
    Run version = run("version", List.of("--version"), Duration.ofSeconds(60));
    assertThat(version.exit()).as(version.out()).isZero();
    assertThat(version.out()).contains("rangekv ").contains("commit ").contains("built ");
    // cert needs Bouncy Castle, which the thin jar leaves out: bin/rangekv runs it with the full jar
    Run ca = run("cert", List.of("cert", "create-ca", "--certs-dir", dir.resolve("certs").toString()), STEP);
    assertThat(ca.exit()).as(ca.out()).isZero();
    assertThat(dir.resolve("certs/ca.crt")).exists();

    Path tmp = Files.createDirectories(dir.resolve("demo-tmp"));
    // 7 s per phase: splits, moves and leader transfers start within seconds of the first writes, and
    // phase 1 runs on (--alert-wait, 30 s by default) until the monotonic-key alert shows on a loaded box
    Run demo = run("demo", List.of("demo", "--duration", "21s"), Duration.ofSeconds(240),
        "-Xmx1g -Djava.io.tmpdir=" + tmp);
    String out = demo.out();
    // the summary in the test report: how long each phase ran (phase 1 waits for the alert on a loaded box)
    int from = out.indexOf("== summary");
    int to = out.indexOf("== what to try", Math.max(from, 0));
    System.out.println("demo: " + (from < 0 ? "no summary" : out.substring(from, to < 0 ? out.length() : to)));
    assertThat(demo.exit()).as(out).isZero();
    assertThat(out).as(out)
        .contains("== phase 1 (event_ts, order_id, seq): the monotonic trap ==")
        .contains("== phase 2 (order_id, event_ts, seq): writes spread, time order lost ==")
        .contains("== phase 3 (bucket, event_ts, order_id, seq): writes spread, time order kept ==")
        .contains("== summary: the same order events, three key designs ==")
        .contains("== what to try next ==")
        .containsPattern("phase 3 \\(bucket, event_ts, order_id, seq\\): [0-9,]+ events in the window; 8 scans merged,"
            + " read [0-9,]+ keys in [0-9,]+ ms; time order kept")
        .containsPattern("split \\[r\\d+,r\\d+\\] r\\d+ split at /events_by_time/");
    assertThat(events(out, "split")).as(out).isPositive();
    assertThat(events(out, "move") + events(out, "leader-transfer")).as(out).isPositive();
    assertThat(events(out, "alert-monotonic")).as(out).isPositive();
    Matcher m = Pattern.compile("under (\\S+);").matcher(out);
    assertThat(m.find()).as(out).isTrue();
    assertThat(Path.of(m.group(1))).as("the demo removed its directory").doesNotExist();
    assertThat(Path.of(m.group(1)).getParent()).isEqualTo(tmp);

    Path conf = home.resolve("conf/rangekv-node.properties");
    List<String> addresses = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      String client = "127.0.0.1:" + NodeConfig.freePort();
      List<String> args = new ArrayList<>(List.of("start", "--config", conf.toString(), "--node-id", "n" + i,
          "--listen", client, "--raft-listen", "127.0.0.1:" + NodeConfig.freePort(),
          "--http-addr", "127.0.0.1:" + NodeConfig.freePort(), "--data-dir", dir.resolve("n" + i).toString(),
          "--set", "controller.tick=1000", "--insecure"));
      if (i > 1) {
        args.addAll(List.of("--join", addresses.get(0)));
      }
      addresses.add(client);
      Path log = dir.resolve("n" + i + ".log");
      processes.add(start(log, args));
      if (i == 1) {
        await(log, o -> o.contains("bootstrapped a new cluster"), "n1 up");
        Run put = run("put", List.of("put", "greeting", "hello", "--cluster", client), STEP);
        assertThat(put.exit()).as(put.out()).isZero();
      }
    }
    // n2 and n3 start together (as an operator starts them), so their JVM start-ups overlap
    for (int i = 2; i <= 3; i++) {
      await(dir.resolve("n" + i + ".log"), o -> o.contains("joined the cluster"), "n" + i + " up");
    }
    String cluster = String.join(",", addresses);
    // polling the cluster through the CLI
    Run nodes = Await.result(STEP, Duration.ofSeconds(1), "3 live nodes",
        () -> runUnchecked("nodes", List.of("nodes", "--cluster", cluster)), r -> r.out().contains("3 nodes, 3 live"));
    assertThat(nodes.out()).contains("3 nodes, 3 live");
    Run get = run("get", List.of("get", "greeting", "--cluster", cluster), STEP);
    assertThat(get.exit()).as(get.out()).isZero();
    assertThat(get.out()).isEqualTo("hello\n");
    // the first successful KV command (the put) made the class data sharing archive the later runs use
    assertThat(home.resolve("lib/rangekv-thin.jsa")).exists();
  }

  private record Run(int exit, String out) {}

  /** Event lines of one kind in the demo's output: {@code     event #12 21:55:03 split [r1,r7] ...}. */
  private static long events(String out, String kind) {
    try (Stream<String> lines = out.lines()) {
      return lines.filter(l -> l.matches("\\s+event #\\d+ \\d\\d:\\d\\d:\\d\\d " + Pattern.quote(kind) + "( .*)?")).count();
    }
  }

  private Run runUnchecked(String name, List<String> args) {
    try {
      return run(name, args, STEP);
    } catch (Exception e) {
      throw new IllegalStateException(name + " did not run", e);
    }
  }

  private Run run(String name, List<String> args, Duration timeout) throws Exception {
    return run(name, args, timeout, javaOptsDefault);
  }

  private Run run(String name, List<String> args, Duration timeout, String javaOpts) throws Exception {
    Path log = dir.resolve(name + "-" + System.nanoTime() + ".log");
    Process p = start(log, args, javaOpts);
    if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(name + " still running after " + timeout + ":\n" + read(log));
    }
    return new Run(p.exitValue(), read(log));
  }

  private Process start(Path log, List<String> args) throws IOException {
    return start(log, args, javaOptsDefault);
  }

  private Process start(Path log, List<String> args, String javaOpts) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(home.resolve("bin/rangekv").toString()));
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    Map<String, String> env = pb.environment();
    env.put("JAVA_HOME", System.getProperty("java.home"));
    env.put("RANGEKV_JAVA_OPTS", javaOpts);
    Process p = pb.start();
    processes.add(p);
    return p;
  }

  private void await(Path log, Predicate<String> condition, String what) {
    // polling a log file; no event to wait on
    Await.until(STEP, Duration.ofMillis(200), what, () -> condition.test(readUnchecked(log)), () -> ":\n" + readUnchecked(log));
  }

  private static String readUnchecked(Path log) {
    try {
      return read(log);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static String read(Path log) throws IOException {
    return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
  }
}
