package dev.rangekv.cli;

import dev.rangekv.cli.admin.EventsCommand;
import dev.rangekv.cli.cert.CertCommand;
import dev.rangekv.cli.cluster.CliException;
import dev.rangekv.cli.cluster.RunOutput;
import dev.rangekv.cli.admin.MergeCommand;
import dev.rangekv.cli.admin.MoveCommand;
import dev.rangekv.cli.admin.PlacementRulesCommand;
import dev.rangekv.cli.admin.NodesCommand;
import dev.rangekv.cli.admin.PresplitCommand;
import dev.rangekv.cli.admin.RangesCommand;
import dev.rangekv.cli.admin.SplitCommand;
import dev.rangekv.cli.admin.WhyCommand;
import dev.rangekv.cli.demo.DemoCommand;
import dev.rangekv.cli.kv.DelCommand;
import dev.rangekv.cli.kv.GetCommand;
import dev.rangekv.cli.kv.PutCommand;
import dev.rangekv.cli.kv.QuickKv;
import dev.rangekv.cli.kv.ScanCommand;
import dev.rangekv.cli.node.ConfigFile;
import dev.rangekv.cli.node.NodeCommand;
import dev.rangekv.cli.node.StartCommand;
import dev.rangekv.cli.sim.SimCommand;
import dev.rangekv.cli.workload.WorkloadCommand;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Supplier;
import dev.rangekv.cli.logging.CommandLogs;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The root {@code rangekv} command. Exit codes: 0 ok; 1 the command was valid but failed (unreachable
 * cluster, timeout, refused start); 2 invalid input (usage errors, and keys, values or bounds the cluster
 * rejects as invalid: nothing was written). Errors print as one line on stderr ({@code error: ...});
 * {@code --verbose} adds the stack trace.
 */
@Command(
    name = "rangekv",
    mixinStandardHelpOptions = true,
    versionProvider = VersionText.class,
    description = "RangeKV: an ordered, range-sharded, Raft-replicated key-value store.")
// subcommands: registered by commandLine(), all of them or only the one a run names (see SUBCOMMANDS)
public final class RangeKvCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--verbose", scope = CommandLine.ScopeType.INHERIT,
      description = "print stack traces with errors, and more log lines")
  boolean verbose;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing subcommand");
  }

  /**
   * The subcommands in help order, by name, each made on demand: picocli builds a command's model by
   * reflection over its annotated fields and methods, which for all of them took ~0.2-0.4 s of a
   * one-shot command's start on this box (picocli's classes are Java 5 class files: outside the class
   * data sharing archive and checked by the old verifier). A run that names one builds only that one.
   * start and demo host nodes: registered only where the server is on the class path (the full jar);
   * picocli introspects a command's methods, whose signatures name server types the thin jar lacks.
   */
  private static final class Registry { // a holder: the fast path of get/put/del/scan never builds the map
    static final Map<String, Supplier<Object>> SUBCOMMANDS = subcommands();
  }

  private static Map<String, Supplier<Object>> subcommands() {
    Map<String, Supplier<Object>> m = new LinkedHashMap<>();
    m.put("help", CommandLine.HelpCommand::new);
    m.put("node", NodeCommand::new);
    m.put("cert", CertCommand::new);
    m.put("put", PutCommand::new);
    m.put("get", GetCommand::new);
    m.put("del", DelCommand::new);
    m.put("scan", ScanCommand::new);
    m.put("ranges", RangesCommand::new);
    m.put("nodes", NodesCommand::new);
    m.put("events", EventsCommand::new);
    m.put("why", WhyCommand::new);
    m.put("split", SplitCommand::new);
    m.put("merge", MergeCommand::new);
    m.put("move", MoveCommand::new);
    m.put("presplit", PresplitCommand::new);
    m.put("backup", dev.rangekv.cli.backup.BackupCommand::new);
    m.put("restore", dev.rangekv.cli.backup.RestoreCommand::new);
    m.put("placement", PlacementRulesCommand::new);
    m.put("sim", SimCommand::new);
    m.put("workload", WorkloadCommand::new);
    m.put("completion", CompletionCommand::new);
    if (hostsNodes()) {
      m.put("demo", DemoCommand::new);
      m.put("start", StartCommand::new);
    }
    return Collections.unmodifiableMap(m);
  }

  /** Builds the command line with every subcommand, the house exit codes and one-line error messages. */
  public static CommandLine commandLine() {
    return commandLine(Registry.SUBCOMMANDS.keySet());
  }

  /**
   * The command line for a run with {@code args}: when they name a subcommand (its first non-option
   * argument), only that one is built; otherwise (help, usage errors, completion) all of them.
   */
  static CommandLine commandLine(String[] args) {
    String named = named(args);
    boolean one = Registry.SUBCOMMANDS.containsKey(named) && !named.equals("help") && !named.equals("completion");
    return commandLine(one ? Set.of(named) : Registry.SUBCOMMANDS.keySet());
  }

  private static CommandLine commandLine(Set<String> names) {
    CommandLine cl = new CommandLine(new RangeKvCommand());
    Registry.SUBCOMMANDS.forEach((name, make) -> {
      if (names.contains(name)) {
        cl.addSubcommand(name, make.get());
      }
    });
    // no @file expansion: "rangekv put k @/etc/hostname" stores the text "@/etc/hostname" (--value-file reads a file)
    cl.setExpandAtFiles(false);
    cl.setExecutionExceptionHandler((ex, cmd, parseResult) -> RunOutput.failed(ex, cmd.getErr(), verbose(parseResult)));
    cl.setParameterExceptionHandler((ex, args) -> {
      CommandLine cmd = ex.getCommandLine();
      PrintWriter err = cmd.getErr();
      err.println("error: " + RunOutput.oneLine(ex));
      err.println("usage: " + cmd.getCommandSpec().qualifiedName() + " --help");
      if (verbose(cmd.getParseResult())) {
        ex.printStackTrace(err);
      }
      err.flush();
      return 2;
    });
    return cl;
  }

  /** True in the full jar; false in the thin client jar (no server, Ratis or RocksDB classes). */
  static boolean hostsNodes() {
    try {
      Class.forName("dev.rangekv.server.node.RangeKvNode", false, RangeKvCommand.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false; // the thin jar: the launcher runs start and demo with the full one
    }
  }

  private static boolean verbose(CommandLine.ParseResult r) {
    for (CommandLine.ParseResult p = r; p != null; p = p.subcommand()) {
      if (p.hasMatchedOption("--verbose")) {
        return true;
      }
    }
    return false;
  }

  public static void main(String[] args) {
    CommandLogs.configure(args); // before anything logs
    String[] expanded;
    try {
      expanded = ConfigFile.expand(args);
    } catch (CliException e) {
      System.err.println("error: " + e.getMessage());
      System.exit(e.exitCode());
      return;
    }
    int exit = run(expanded, RunOutput.stdout(), RunOutput.stderr());
    if (Boolean.getBoolean(CDS_TRAINING)) {
      loadEveryCommandModel();
    }
    System.exit(exit);
  }

  /**
   * Runs the command {@code args} name, writing to {@code out} and {@code err}; returns the exit code.
   * get, put, del and scan in their usual forms take the fast path ({@link QuickKv}: no picocli model);
   * everything else, and anything the fast path declines, is parsed and run by picocli.
   */
  public static int run(String[] args, PrintWriter out, PrintWriter err) {
    OptionalInt quick = QuickKv.run(args, out, err);
    if (quick.isPresent()) {
      return quick.getAsInt();
    }
    String named = named(args);
    if (!named.isEmpty() && !Registry.SUBCOMMANDS.containsKey(named)) {
      // picocli would print the top-level usage for "rangekv frobnicate --help" and exit 0, as if the
      // command existed; without --help it reports an "unmatched argument"
      err.println("error: unknown command '" + named + "' (rangekv --help lists the commands)");
      err.println("usage: rangekv --help");
      err.flush();
      return 2;
    }
    CommandLine cl = commandLine(args);
    Optional<UnknownSubcommand> unknown = UnknownSubcommand.in(cl, args);
    if (unknown.isPresent()) {
      // as above, for a group's subcommand: "rangekv backup frobnicate --help" printed backup's usage, exit 0
      String group = unknown.get().group().getCommandSpec().qualifiedName();
      err.println("error: unknown command '" + group.substring("rangekv ".length()) + " " + unknown.get().name()
          + "' (" + group + " --help lists its commands)");
      err.println("usage: " + group + " --help");
      err.flush();
      return 2;
    }
    cl.setOut(out);
    cl.setErr(err);
    return cl.execute(args);
  }

  /**
   * A name given where a command group ({@code backup}, {@code cert}, ...) expects one of its subcommands.
   *
   * @param group the group
   * @param name the name it has no subcommand of
   */
  record UnknownSubcommand(CommandLine group, String name) {
    /** The first unknown subcommand {@code args} name under {@code root}'s groups, if any. */
    static Optional<UnknownSubcommand> in(CommandLine root, String[] args) {
      CommandLine at = root;
      for (String a : nonOptions(args)) {
        // a group takes no option values, so its next non-option argument names its subcommand; a command
        // that runs (no subcommands, or positional parameters of its own) takes the rest as arguments
        if (at.getSubcommands().isEmpty() || !at.getCommandSpec().positionalParameters().isEmpty()) {
          return Optional.empty();
        }
        CommandLine next = at.getSubcommands().get(a);
        if (next == null) {
          return at == root ? Optional.empty() : Optional.of(new UnknownSubcommand(at, a)); // root: checked by name
        }
        at = next;
      }
      return Optional.empty();
    }
  }

  private static List<String> nonOptions(String[] args) {
    return Arrays.stream(args).filter(a -> !a.startsWith("-")).toList();
  }

  /** The command {@code args} name: their first non-option argument (the root takes no option values). */
  private static String named(String[] args) {
    return Arrays.stream(args).filter(a -> !a.startsWith("-")).findFirst().orElse("");
  }

  /**
   * Set by the launcher on the run whose loaded classes make the class data sharing archive
   * ({@code bin/rangekv-run}): that run is a KV command, which the fast path runs without picocli, so
   * this also loads what help and the other commands use (every command's model, the usage text).
   */
  static final String CDS_TRAINING = "rangekv.cds.training";

  private static void loadEveryCommandModel() {
    CommandLine cl = commandLine();
    cl.getUsageMessage();
    cl.getSubcommands().values().forEach(CommandLine::getUsageMessage);
  }
}
