package dev.rangekv.cli.node;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code rangekv node ...}: node membership commands (today: {@code remove}). */
@Command(name = "node", mixinStandardHelpOptions = true, description = "Node membership: remove a dead node for good.",
    subcommands = NodeRemoveCommand.class)
public final class NodeCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing subcommand (remove)");
  }
}
