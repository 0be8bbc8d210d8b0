package dev.rangekv.cli.cluster;

import dev.rangekv.cli.format.Json;
import dev.rangekv.cli.format.KeyFormat;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.proto.MetaServiceGrpc;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;
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
    if (options.timeout().isZero()) { // the client's own message would name its internal settings
      CommandLine.Model.OptionSpec typed = spec.commandLine().getParseResult().matchedOption("--timeout");
      throw new CommandLine.ParameterException(spec.commandLine(), "--timeout must be positive, got "
          + (typed == null ? options.timeout() : typed.stringValues().get(0)));
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

  /** One read of MetaService through {@code addresses} (following the meta leader), within {@code --timeout}. */
  protected <R> R metaRead(List<String> addresses, Function<MetaServiceGrpc.MetaServiceBlockingStub, R> call) {
    try (MetaCalls meta = new MetaCalls(addresses, options.timeout(), options.tls())) {
      return meta.read(call);
    }
  }

  /** One change through MetaService, retried only when it definitely did not happen. */
  protected <R> R metaChange(List<String> addresses, Function<MetaServiceGrpc.MetaServiceBlockingStub, R> call) {
    try (MetaCalls meta = new MetaCalls(addresses, options.timeout(), options.tls())) {
      return meta.change(call);
    }
  }

  /** Runs {@code call} on a client connected through {@code addresses}, within {@code --timeout}. */
  protected <R> R kvRun(List<String> addresses, Function<RangeKvClient, R> call) {
    try (KvSession kv = KvSession.open(addresses, options.timeout(), options.tls())) {
      return kv.run(call);
    }
  }
}
