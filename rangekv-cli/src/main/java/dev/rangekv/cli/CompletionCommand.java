package dev.rangekv.cli;

import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code rangekv completion}: prints the bash (and zsh) completion script for every command and option. */
@Command(name = "completion", mixinStandardHelpOptions = true,
    description = {"Print a bash/zsh completion script for rangekv.",
        "Try it: source <(rangekv completion)   Keep it: rangekv completion > /etc/bash_completion.d/rangekv"})
public final class CompletionCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    CommandLine root = spec.root().commandLine();
    spec.commandLine().getOut().print(AutoComplete.bash(root.getCommandName(), root));
    spec.commandLine().getOut().flush();
  }
}
