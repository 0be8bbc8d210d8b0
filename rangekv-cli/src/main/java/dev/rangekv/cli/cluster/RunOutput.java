package dev.rangekv.cli.cluster;

import java.io.BufferedWriter;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/**
 * Where a run of the {@code rangekv} command writes, and how it reports a failed command: one line
 * {@code error: ...} on stderr, the stack trace only with {@code --verbose}. Used by picocli's handlers
 * and by the fast path alike, so both print the same. Stateless.
 */
public final class RunOutput {
  private RunOutput() {}

  /** Standard output as picocli makes it by default ({@code sun.stdout.encoding}, else the default charset). */
  public static PrintWriter stdout() {
    return writer(System.out, System.getProperty("sun.stdout.encoding"));
  }

  /** Standard error as picocli makes it by default. */
  public static PrintWriter stderr() {
    return writer(System.err, System.getProperty("sun.stderr.encoding"));
  }

  private static PrintWriter writer(OutputStream stream, String encoding) {
    return new PrintWriter(new BufferedWriter(new OutputStreamWriter(stream, charset(encoding))), true);
  }

  /** picocli's choice: the named charset ({@code cp65001} is UTF-8), else the platform default. */
  private static Charset charset(String name) {
    if (name == null) {
      return Charset.defaultCharset();
    }
    try {
      return name.equalsIgnoreCase("cp65001") ? StandardCharsets.UTF_8 : Charset.forName(name);
    } catch (RuntimeException e) {
      return Charset.defaultCharset(); // an unknown name: picocli falls back the same way
    }
  }

  /** Prints a failed command's one line (and its stack trace with {@code verbose}); returns the exit code. */
  public static int failed(Throwable ex, PrintWriter err, boolean verbose) {
    err.println("error: " + oneLine(ex));
    if (verbose) {
      ex.printStackTrace(err);
    }
    err.flush();
    return ex instanceof CliException c ? c.exitCode() : CliException.FAILED;
  }

  /** The first line of the exception's message (its class name when it has none). */
  public static String oneLine(Throwable ex) {
    String m = ex.getMessage() == null ? ex.getClass().getSimpleName() : ex.getMessage();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
