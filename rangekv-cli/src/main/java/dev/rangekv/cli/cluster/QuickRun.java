package dev.rangekv.cli.cluster;

import java.io.PrintWriter;
import java.util.Set;

/**
 * How the fast path ({@code cli.kv.QuickKv}) runs a {@link ClusterCommand} without a picocli model:
 * where it prints and which options the command line named. A usage error in such a run throws
 * {@link Declined} before anything is called or printed, and picocli then parses the same arguments and
 * reports it exactly as it always has.
 *
 * @param out the command's standard output
 * @param given the options named on the command line (as picocli's {@code hasMatchedOption} tells)
 */
public record QuickRun(PrintWriter out, Set<String> given) {
  public QuickRun {
    given = Set.copyOf(given);
  }

  /** The fast path leaves these arguments to picocli (help, a usage error, anything it does not parse). */
  public static final class Declined extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public Declined(String why) {
      super(why, null, false, false); // control flow, not a failure: no stack trace
    }
  }
}
