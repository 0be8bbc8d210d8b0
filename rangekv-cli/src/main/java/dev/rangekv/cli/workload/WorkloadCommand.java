package dev.rangekv.cli.workload;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code rangekv workload}: the parent of {@code workload run}. */
@Command(name = "workload", mixinStandardHelpOptions = true,
    description = "Drive a cluster with YCSB-like phases and report ops/s, latency and CPU per operation.",
    subcommands = {RunCommand.class})
public final class WorkloadCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing subcommand (try: workload run kv)");
  }
}
