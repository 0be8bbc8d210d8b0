package dev.rangekv.cli.backup;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code rangekv backup create|list|show|verify}: copies of the cluster's data outside it. */
@Command(name = "backup", mixinStandardHelpOptions = true,
    description = "Back up ranges as SST files with a manifest; list, show and verify backups.",
    subcommands = {BackupCreateCommand.class, BackupListCommand.class, BackupShowCommand.class,
        BackupVerifyCommand.class})
public final class BackupCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing subcommand (create, list, show, verify)");
  }
}
