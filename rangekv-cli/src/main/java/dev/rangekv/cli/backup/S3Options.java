package dev.rangekv.cli.backup;

import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * {@code --s3-endpoint URL --s3-region R}: for {@code s3://} URIs, beside the standard AWS environment
 * variables (credentials: {@code AWS_ACCESS_KEY_ID}, {@code AWS_SECRET_ACCESS_KEY}).
 */
public final class S3Options {
  @Option(names = "--s3-endpoint", paramLabel = "URL",
      description = "an S3-compatible store's URL (default: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or AWS's own)")
  String endpoint;

  @Option(names = "--s3-region", paramLabel = "REGION", description = "the signing region (default: AWS_REGION, else us-east-1)")
  String region;

  S3Settings settings() {
    return new S3Settings(Optional.ofNullable(endpoint), Optional.ofNullable(region));
  }
}
