package dev.rangekv.cli.cluster;

/**
 * A failure the command reports as one line on stderr (exit code 1), e.g. an unreachable cluster or an
 * unknown range. The cause is kept for {@code --verbose}.
 */
public final class CliException extends RuntimeException {
  public CliException(String message) {
    super(message);
  }

  public CliException(String message, Throwable cause) {
    super(message, cause);
  }
}
