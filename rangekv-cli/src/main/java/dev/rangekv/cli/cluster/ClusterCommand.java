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

  /** Set instead of {@link #spec} when the fast path runs this command (no picocli model). */
  private QuickRun quick;

  @Override
  public final Integer call() {
    List<String> addresses;
    try {
      addresses = options.addresses();
    } catch (IllegalArgumentException e) {
      throw usageError(e.getMessage(), e);
    }
    if (options.timeout().isZero()) { // the client's own message would name its internal settings
      if (quick != null) {
        throw new QuickRun.Declined("--timeout 0"); // picocli's parse result has the option as typed
      }
      CommandLine.Model.OptionSpec typed = spec.commandLine().getParseResult().matchedOption("--timeout");
      throw new CommandLine.ParameterException(spec.commandLine(), "--timeout must be positive, got "
          + (typed == null ? options.timeout() : typed.stringValues().get(0)));
    }
    execute(addresses);
    out().flush();
    return 0;
  }

  /**
   * Runs this command with options the fast path parsed, as {@link #call()} does after picocli's parse.
   * A usage error throws {@link QuickRun.Declined}; every command raises those before its first call.
   */
  public final int callQuick(ClusterOptions parsed, QuickRun run) {
    this.options = parsed;
    this.quick = run;
    return call();
  }

  /** A usage error (exit 2, one line and a usage hint); in a fast-path run, a hand-over to picocli. */
  protected final RuntimeException usageError(String message, Throwable cause) {
    if (quick != null) {
      return new QuickRun.Declined(message);
    }
    return new CommandLine.ParameterException(spec.commandLine(), message, cause);
  }

  /** True when the command line named {@code option} (not just its default). */
  protected final boolean given(String option) {
    return quick != null ? quick.given().contains(option) : spec.commandLine().getParseResult().hasMatchedOption(option);
  }

  /** Runs the command against the cluster reached through {@code addresses}. */
  protected abstract void execute(List<String> addresses);

  protected PrintWriter out() {
    return quick != null ? quick.out() : spec.commandLine().getOut();
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
      throw usageError(what + ": " + e.getMessage(), e);
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
