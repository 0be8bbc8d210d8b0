package dev.rangekv.cli.kv;

import dev.rangekv.cli.cluster.ClusterCommand;
import dev.rangekv.cli.cluster.ClusterOptions;
import dev.rangekv.cli.cluster.QuickRun;
import dev.rangekv.cli.cluster.RunOutput;
import java.io.PrintWriter;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The fast path of {@code get}, {@code put}, {@code del} and {@code scan}: parses their usual forms by
 * hand and runs the same command objects, without building picocli's model. That model is built by
 * reflection over the commands' annotations (annotation proxies generated at run time, converters
 * registered), ~150-250 ms of a one-shot command's start on this box (BENCHMARKS.md, "CLI start time").
 *
 * <p>Anything else is left to picocli, which then parses the arguments as it always has: help and
 * version options, unknown or repeated options, a missing or extra argument, an option value that starts
 * with {@code -}, {@code --}, {@code --flag=value}, and every usage error the command finds itself
 * ({@link QuickRun.Declined}, thrown before the command calls the cluster or prints). So help, errors and
 * exit codes stay picocli's; a failure of a parsed command prints as picocli's handler prints it
 * ({@link RunOutput#failed}). Stateless.
 */
public final class QuickKv {
  private static final Set<String> COMMANDS = Set.of("get", "put", "del", "scan");
  private static final Set<String> PUT_VALUED = Set.of("--value-file");
  private static final Set<String> SCAN_VALUED = Set.of("--from", "--to", "--limit", "--from-cursor");
  private static final Set<String> SCAN_FLAGS = Set.of("--reverse");
  private static final String VERBOSE = "--verbose";

  private QuickKv() {}

  /**
   * Runs {@code args} when they are a KV command the fast path parses, returning its exit code; empty
   * when picocli must handle them (nothing has been called or printed then).
   */
  public static OptionalInt run(String[] args, PrintWriter out, PrintWriter err) {
    Parsed p = parse(args);
    if (p == null) {
      return OptionalInt.empty();
    }
    ClusterCommand command;
    ClusterOptions options;
    try {
      command = command(p);
      options = ClusterOptions.quick(p.values(), p.flags());
    } catch (QuickRun.Declined e) {
      return OptionalInt.empty();
    }
    Set<String> given = new HashSet<>(p.values().keySet());
    given.addAll(p.flags());
    try {
      return OptionalInt.of(command.callQuick(options, new QuickRun(out, given)));
    } catch (QuickRun.Declined e) {
      return OptionalInt.empty();
    } catch (RuntimeException e) {
      return OptionalInt.of(RunOutput.failed(e, err, p.flags().contains(VERBOSE)));
    }
  }

  /**
   * A KV command line: the command, its arguments in order, option values by name and the flags given.
   */
  record Parsed(String command, List<String> positionals, Map<String, String> values, Set<String> flags) {
    Parsed {
      positionals = List.copyOf(positionals);
      values = Map.copyOf(values);
      flags = Set.copyOf(flags);
    }
  }

  /** {@code args} as a KV command line, or null when picocli must parse them. */
  static Parsed parse(String[] args) {
    int i = 0;
    Set<String> flags = new HashSet<>();
    while (i < args.length && args[i].equals(VERBOSE) && flags.add(VERBOSE)) { // the root's only option here
      i++;
    }
    if (i == args.length || !COMMANDS.contains(args[i])) {
      return null;
    }
    String command = args[i++];
    Set<String> valued = new HashSet<>(ClusterOptions.VALUED);
    Set<String> flagNames = new HashSet<>(ClusterOptions.FLAGS);
    flagNames.add(VERBOSE); // inherited by every subcommand
    if (command.equals("put")) {
      valued.addAll(PUT_VALUED);
    } else if (command.equals("scan")) {
      valued.addAll(SCAN_VALUED);
      flagNames.addAll(SCAN_FLAGS);
    }
    List<String> positionals = new ArrayList<>();
    Map<String, String> values = new HashMap<>();
    for (; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("-")) {
        positionals.add(a);
        continue;
      }
      int eq = a.indexOf('=');
      String name = eq < 0 ? a : a.substring(0, eq);
      if (flagNames.contains(a)) {
        if (!flags.add(a)) {
          return null; // given twice: picocli's error
        }
      } else if (valued.contains(name)) {
        String value;
        if (eq >= 0) {
          value = a.substring(eq + 1);
        } else if (i + 1 < args.length) {
          value = args[++i];
        } else {
          return null; // missing value
        }
        if (value.isEmpty() || value.startsWith("-") || values.putIfAbsent(name, value) != null) {
          return null; // an empty value, one that looks like an option, or an option given twice
        }
      } else {
        return null; // help, version, --, an unknown option, a flag with a value
      }
    }
    return new Parsed(command, positionals, values, flags);
  }

  /** The command object with its own fields set as picocli would set them. */
  private static ClusterCommand command(Parsed p) {
    List<String> pos = p.positionals();
    Map<String, String> v = p.values();
    switch (p.command()) {
      case "get" -> {
        GetCommand c = new GetCommand();
        c.key = only(pos, 1, 1).get(0);
        return c;
      }
      case "del" -> {
        DelCommand c = new DelCommand();
        c.key = only(pos, 1, 1).get(0);
        return c;
      }
      case "put" -> {
        PutCommand c = new PutCommand();
        c.key = only(pos, 1, 2).get(0);
        c.value = pos.size() > 1 ? pos.get(1) : null;
        c.valueFile = v.containsKey("--value-file") ? path(v.get("--value-file")) : null;
        return c;
      }
      default -> {
        ScanCommand c = new ScanCommand();
        only(pos, 0, 0);
        c.from = v.get("--from");
        c.to = v.get("--to");
        c.cursor = v.get("--from-cursor");
        c.reverse = p.flags().contains("--reverse");
        String limit = v.getOrDefault("--limit", "100");
        if (!limit.matches("\\d{1,18}")) { // picocli's Long.valueOf, less its corner cases (+1, overflow)
          throw new QuickRun.Declined("--limit " + limit);
        }
        c.limit = Long.parseLong(limit);
        return c;
      }
    }
  }

  private static List<String> only(List<String> positionals, int min, int max) {
    if (positionals.size() < min || positionals.size() > max) {
      throw new QuickRun.Declined(positionals.size() + " arguments"); // picocli names what is missing or extra
    }
    return positionals;
  }

  private static Path path(String text) {
    try {
      return Path.of(text);
    } catch (InvalidPathException e) {
      throw new QuickRun.Declined("--value-file: " + e.getMessage());
    }
  }
}
