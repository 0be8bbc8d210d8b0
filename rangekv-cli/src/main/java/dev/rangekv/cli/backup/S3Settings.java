package dev.rangekv.cli.backup;

import java.util.Optional;

/**
 * How to reach an S3-compatible store; what is not given comes from the AWS SDK's defaults (the
 * standard {@code AWS_*} environment variables, {@code aws.*} system properties, the shared config files).
 *
 * @param endpoint the store's URL (e.g. {@code http://minio:9000}); given, requests use path-style addressing
 * @param region the signing region
 */
public record S3Settings(Optional<String> endpoint, Optional<String> region) {
  /** Everything from the SDK's defaults. */
  public static final S3Settings DEFAULTS = new S3Settings(Optional.empty(), Optional.empty());
}
