package dev.rangekv.cli.process;

import dev.rangekv.cli.RangeKvCommand;
import dev.rangekv.server.node.EngineChoice;
import dev.rangekv.testkit.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * One {@code rangekv} process started from the test classpath, its stdout and stderr going to a log
 * file (never a pipe that could fill up). Tests await lines in the log with a bound, and must
 * {@link #close()} it (destroyForcibly) in a finally block.
 */
public final class CliProcess implements AutoCloseable {
  /**
   * JVM options of every test process: a small heap, and C1 only (as bin/rangekv runs its short commands):
   * a test node lives a minute or two, and on a 2-core box its C2 compiles competed with the other
   * nodes' start-ups, each of which took 10-14 s to say "joined" with 2 IT forks running.
   */
  static final List<String> NODE_JVM = List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
      "-XX:-UsePerfData");

  private final Process process;
  private final Path log;

  private CliProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  static CliProcess start(Path log, List<String> args) throws IOException {
    return start(log, List.of(), args);
  }

  static CliProcess start(Path log, List<String> jvmArgs, List<String> args) throws IOException {
    return run(log, command(jvmArgs, args));
  }

  /** A process of the whole command line {@code cmd} (the CDS training node builds its own). */
  static CliProcess run(Path log, List<String> cmd) throws IOException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    return new CliProcess(p, log);
  }

  /**
   * The command line of a {@code rangekv} process with {@code args}: this JVM's java with {@link #NODE_JVM}
   * then {@code jvmArgs}, on the shaded jar with the nodes' class data sharing archive ({@link NodeArchive})
   * when failsafe names the jar ({@code rangekv.jar}, made by package), else on the test classpath.
   */
  public static List<String> command(List<String> jvmArgs, List<String> args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(NODE_JVM);
    // the run's engine (-Drangekv.engine, CONTRIBUTING.md) for the nodes this process starts; --engine wins
    Optional.ofNullable(System.getProperty(EngineChoice.PROPERTY)).ifPresent(e -> cmd.add("-D" + EngineChoice.PROPERTY + "=" + e));
    cmd.addAll(jvmArgs); // after the defaults: a later -Xmx wins
    Optional<Path> jar = Optional.ofNullable(System.getProperty("rangekv.jar")).map(Path::of).filter(Files::isRegularFile);
    if (jar.isPresent()) {
      NodeArchive.forJar(jar.get()).ifPresent(jsa -> cmd.add("-XX:SharedArchiveFile=" + jsa));
      cmd.addAll(List.of("-cp", jar.get().toString(), RangeKvCommand.class.getName()));
    } else {
      cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), RangeKvCommand.class.getName()));
    }
    cmd.addAll(args);
    return cmd;
  }

  String output() {
    try {
      return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Waits until the output satisfies {@code condition}; fails with the output if the process died or time ran out. */
  void awaitOutput(Predicate<String> condition, Duration timeout, String what) {
    // polling a log file; no event to wait on
    Await.until(timeout, Duration.ofMillis(200), what, () -> {
      String out = output();
      if (condition.test(out)) {
        return true;
      }
      if (!process.isAlive()) {
        throw new AssertionError(what + ": the process exited with " + process.exitValue() + "; output:\n" + out);
      }
      return false;
    }, () -> "; output:\n" + output());
  }

  /** Waits for the process to exit and returns its exit code; fails on timeout. */
  int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("still running after " + timeout + "; output:\n" + output());
    }
    return process.exitValue();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** SIGTERM, as a service manager stops a node. */
  void terminate() {
    process.destroy();
  }

  @Override
  public void close() {
    process.destroyForcibly();
    try {
      process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the kill is sent; the test is ending anyway
    }
  }
}
