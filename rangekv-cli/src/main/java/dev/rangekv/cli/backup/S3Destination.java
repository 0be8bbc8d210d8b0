package dev.rangekv.cli.backup;

import dev.rangekv.cli.cluster.CliException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A backup in an S3-compatible bucket ({@code s3://bucket/prefix}) through the AWS SDK for Java v2. A
 * file is spooled to a local temporary file and uploaded with one PUT when its stream closes: an object
 * appears whole or not at all, as with a directory's rename.
 */
final class S3Destination implements Destination {
  private final String uri;
  private final S3Client s3;
  private final boolean owner;
  private final String bucket;
  private final String prefix; // "" or ending with "/"

  private S3Destination(String uri, S3Client s3, boolean owner, String bucket, String prefix) {
    this.uri = uri;
    this.s3 = s3;
    this.owner = owner;
    this.bucket = bucket;
    this.prefix = prefix;
  }

  static S3Destination open(URI u, S3Settings settings) {
    String bucket = u.getHost();
    if (bucket == null || bucket.isEmpty()) {
      throw new CliException("an s3 URI needs a bucket: s3://bucket/prefix, got " + u);
    }
    String path = u.getPath() == null ? "" : u.getPath().replaceFirst("^/+", "");
    String prefix = path.isEmpty() || path.endsWith("/") ? path : path + "/";
    S3ClientBuilder b = S3Client.builder().httpClient(UrlConnectionHttpClient.create());
    b.region(settings.region().map(Region::of).orElseGet(S3Destination::defaultRegion));
    // S3-compatible stores: path-style buckets, and checksums only where S3 requires them (the SDK's
    // default trailing checksums in aws-chunked uploads are AWS-only)
    settings.endpoint().ifPresent(e -> b.endpointOverride(URI.create(e)).forcePathStyle(true)
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED));
    try {
      return new S3Destination(u.toString(), b.build(), true, bucket, prefix);
    } catch (SdkException e) {
      throw new CliException("cannot set up the S3 client for " + u + ": " + e.getMessage(), e);
    }
  }

  private static Region defaultRegion() {
    try {
      return new DefaultAwsRegionProviderChain().getRegion();
    } catch (SdkException e) {
      return Region.US_EAST_1; // an S3-compatible store often ignores the region; AWS itself redirects
    }
  }

  @Override
  public String uri() {
    return uri;
  }

  private String key(String name) {
    if (name.startsWith("/") || name.contains("..")) {
      throw new IllegalArgumentException("file name leaves the backup: " + name);
    }
    return prefix + name;
  }

  @Override
  public OutputStream create(String name) throws IOException {
    String key = key(name);
    Path spool = Files.createTempFile("rangekv-s3-", ".part");
    OutputStream out = Files.newOutputStream(spool);
    return new PublishOnClose(out, () -> {
      try {
        out.close();
        s3.putObject(r -> r.bucket(bucket).key(key), RequestBody.fromFile(spool));
      } catch (SdkException e) {
        throw new IOException("uploading s3://" + bucket + "/" + key + " failed: " + e.getMessage(), e);
      } finally {
        Files.deleteIfExists(spool);
      }
    });
  }

  @Override
  public InputStream open(String name) throws IOException {
    String key = key(name);
    try {
      return s3.getObject(r -> r.bucket(bucket).key(key));
    } catch (NoSuchKeyException e) {
      throw new NoSuchFileException("s3://" + bucket + "/" + key);
    } catch (SdkException e) {
      throw new IOException("reading s3://" + bucket + "/" + key + " failed: " + e.getMessage(), e);
    }
  }

  @Override
  public Optional<Long> size(String name) throws IOException {
    String key = key(name);
    try {
      HeadObjectResponse h = s3.headObject(r -> r.bucket(bucket).key(key));
      return Optional.of(h.contentLength());
    } catch (NoSuchKeyException e) {
      return Optional.empty();
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        return Optional.empty();
      }
      throw new IOException("reading s3://" + bucket + "/" + key + " failed: " + e.getMessage(), e);
    } catch (SdkException e) {
      throw new IOException("reading s3://" + bucket + "/" + key + " failed: " + e.getMessage(), e);
    }
  }

  @Override
  public List<String> childrenHolding(String name) throws IOException {
    List<String> out = new ArrayList<>();
    try {
      String token = null;
      do {
        ListObjectsV2Request.Builder req = ListObjectsV2Request.builder().bucket(bucket).prefix(prefix).delimiter("/");
        if (token != null) {
          req.continuationToken(token);
        }
        ListObjectsV2Response page = s3.listObjectsV2(req.build());
        for (CommonPrefix p : page.commonPrefixes()) {
          String child = p.prefix().substring(prefix.length()).replaceFirst("/$", "");
          if (size(child + "/" + name).isPresent()) {
            out.add(child);
          }
        }
        token = page.isTruncated() ? page.nextContinuationToken() : null;
      } while (token != null);
    } catch (SdkException e) {
      throw new IOException("listing s3://" + bucket + "/" + prefix + " failed: " + e.getMessage(), e);
    }
    return out;
  }

  @Override
  public Destination child(String child) {
    return new S3Destination(uri.endsWith("/") ? uri + child : uri + "/" + child, s3, false, bucket,
        prefix + child + "/");
  }

  @Override
  public void close() {
    if (owner) {
      s3.close();
    }
  }
}
