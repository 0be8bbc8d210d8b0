package dev.rangekv.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The root {@code rangekv} command. Exit codes: 0 ok, 1 error, 2 usage.
 */
@Command(
    name = "rangekv",
    mixinStandardHelpOptions = true,
    version = "rangekv 0.1.0-SNAPSHOT",
    description = "RangeKV: an ordered, range-sharded, Raft-replicated key-value store.",
    subcommands = {
        CommandLine.HelpCommand.class,
        DemoCommand.class,
    })
public final class RangeKvCommand implements Runnable {

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing subcommand");
  }

  /** Builds the command line with the house exit codes and one-line error messages. */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new RangeKvCommand());
    cl.setExecutionExceptionHandler((ex, cmd, parseResult) -> {
      cmd.getErr().println("error: " + ex.getMessage());
      return 1;
    });
    return cl;
  }

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }
}
