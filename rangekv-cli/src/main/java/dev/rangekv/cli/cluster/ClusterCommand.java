package dev.rangekv.cli.cluster;

import dev.rangekv.cli.format.Json;
import dev.rangekv.cli.format.KeyFormat;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;

/**
 * The base of commands that talk to a running cluster: parses the shared options, turns bad input
 * into usage errors (exit 2) and returns 0 when {@link #execute()} completes.
 */
public abstract class ClusterCommand implements Callable<Integer> {
  @Mixin
  protected ClusterOptions options;

  @Spec
  protected CommandLine.Model.CommandSpec spec;

  @Override
  public final Integer call() {
    List<String> addresses;
    try {
      addresses = options.addresses();
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    execute(addresses);
    out().flush();
    return 0;
  }

  /** Runs the command against the cluster reached through {@code addresses}. */
  protected abstract void execute(List<String> addresses);

  protected PrintWriter out() {
    return spec.commandLine().getOut();
  }

  protected boolean json() {
    return options.json();
  }

  protected KeyFormat keys() {
    return options.keys();
  }

  /** Parses a key argument; bad hex is a usage error. */
  protected byte[] parseBytes(String text, String what) {
    try {
      return keys().parse(text);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), what + ": " + e.getMessage(), e);
    }
  }

  protected void printJson(Object value) {
    out().println(Json.write(value));
  }

  protected MetaCalls meta(List<String> addresses) {
    return new MetaCalls(addresses, options.timeout());
  }

  protected KvSession kv(List<String> addresses) {
    return KvSession.open(addresses, options.timeout());
  }
}
