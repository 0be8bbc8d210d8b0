package dev.rangekv.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs the command in-process and captures its exit code, stdout and stderr. */
public record CliRun(int exit, String out, String err) {

  public static CliRun of(String... args) {
    CommandLine cl = RangeKvCommand.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int exit = cl.execute(args);
    return new CliRun(exit, out.toString(), err.toString());
  }

  @Override
  public String toString() {
    return "exit=" + exit + "\n--- out:\n" + out + "--- err:\n" + err;
  }
}
