package dev.rangekv.cli.backup;

import picocli.CommandLine.Option;

/** {@code --span PREFIX | --start K [--end K]}: the keys a backup or restore covers (default: all). */
public final class SpanOptions {
  @Option(names = "--span", paramLabel = "PREFIX", description = "the keys starting with PREFIX")
  String prefix;

  @Option(names = "--start", paramLabel = "KEY", description = "the first key (inclusive)")
  String start;

  @Option(names = "--end", paramLabel = "KEY", description = "the end key (exclusive; default: no end)")
  String end;
}
