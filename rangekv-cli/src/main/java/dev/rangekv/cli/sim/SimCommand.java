package dev.rangekv.cli.sim;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code rangekv sim}: offline simulators; needs no cluster. */
@Command(
    name = "sim",
    mixinStandardHelpOptions = true,
    description = "Offline simulators (no cluster needed).",
    subcommands = {PlacementCommand.class})
public final class SimCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing subcommand, e.g. 'sim placement'");
  }
}
