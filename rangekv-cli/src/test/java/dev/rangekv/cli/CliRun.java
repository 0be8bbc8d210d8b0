package dev.rangekv.cli;

import dev.rangekv.testkit.Await;
import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs the command in-process and captures its exit code, stdout and stderr. */
public record CliRun(int exit, String out, String err) {

  /** Runs {@code args} as main does: get/put/del/scan through the fast path where it takes them, else picocli. */
  public static CliRun of(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = RangeKvCommand.run(args, new PrintWriter(out), new PrintWriter(err));
    return new CliRun(exit, out.toString(), err.toString());
  }

  /** Runs {@code args} through picocli only (the model of the command they name), never the fast path. */
  public static CliRun picocli(String... args) {
    CommandLine cl = RangeKvCommand.commandLine(args); // as main builds it: only the command the args name
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int exit = cl.execute(args);
    return new CliRun(exit, out.toString(), err.toString());
  }

  /** {@code r}, after asserting it exited 0 (the run's output is the failure message). */
  public static CliRun ok(CliRun r) {
    org.assertj.core.api.Assertions.assertThat(r.exit()).as(r.toString()).isZero();
    return r;
  }

  /**
   * Runs the command every 500 ms until its result satisfies {@code condition}, for at most {@code
   * within} (polling a cluster's state through the CLI: there is no event to wait on).
   */
  public static void await(java.time.Duration within, java.util.function.Predicate<CliRun> condition, String what,
      String... args) {
    Await.result(within, java.time.Duration.ofMillis(500), what, () -> of(args), condition);
  }

  @Override
  public String toString() {
    return "exit=" + exit + "\n--- out:\n" + out + "--- err:\n" + err;
  }
}
