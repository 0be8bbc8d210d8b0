package dev.rangekv.cli.backup;

import dev.rangekv.cli.cluster.CliException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;

/** Opens a backup's {@link Destination} from its URI: {@code file:///dir} or {@code s3://bucket/prefix}. */
public final class Destinations {
  private Destinations() {}

  /** The destination at {@code uri}; a malformed or unsupported URI is a {@link CliException}. */
  public static Destination open(String uri, S3Settings s3) {
    URI u;
    try {
      u = new URI(uri);
    } catch (URISyntaxException e) {
      throw new CliException("not a backup URI: " + uri + " (" + e.getReason() + ")", e);
    }
    String scheme = u.getScheme() == null ? "" : u.getScheme();
    return switch (scheme) {
      case "file" -> {
        if (u.getPath() == null || u.getPath().isEmpty()) {
          throw new CliException("a file URI needs an absolute path: file:///path/to/backup, got " + uri);
        }
        yield new FileDestination(uri, Path.of(u.getPath()).toAbsolutePath().normalize());
      }
      case "s3" -> S3Destination.open(u, s3);
      default -> throw new CliException("unsupported backup URI " + uri + ": use file:///path or s3://bucket/prefix");
    };
  }
}
