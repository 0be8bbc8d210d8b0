package dev.rangekv.cli.cluster;

/**
 * A failure the command reports as one line on stderr, e.g. an unreachable cluster or an unknown range
 * (exit code 1), or input the cluster rejected as invalid (exit code 2, see {@link #invalidInput}). The
 * cause is kept for {@code --verbose}.
 */
public final class CliException extends RuntimeException {
  /** Exit code of a command that was valid but failed. */
  public static final int FAILED = 1;
  /** Exit code of invalid input: usage errors and values the cluster's limits reject (nothing written). */
  public static final int INVALID_INPUT = 2;
  private static final long serialVersionUID = 1L;
  private final int exitCode;

  public CliException(String message) {
    this(message, null, FAILED);
  }

  public CliException(String message, Throwable cause) {
    this(message, cause, FAILED);
  }

  private CliException(String message, Throwable cause, int exitCode) {
    super(message, cause);
    this.exitCode = exitCode;
  }

  /** Input the cluster rejected (an empty or oversized key, an oversized value, bad bounds): exit 2. */
  public static CliException invalidInput(String message, Throwable cause) {
    return new CliException(message, cause, INVALID_INPUT);
  }

  public int exitCode() {
    return exitCode;
  }
}
