package dev.rangekv.cli.backup;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A backup in a local or mounted directory ({@code file:///path}). Files are written under a temporary
 * name and renamed into place when closed, so a killed backup leaves no half-written file under a real name.
 */
final class FileDestination implements Destination {
  private final String uri;
  private final Path root;

  FileDestination(String uri, Path root) {
    this.uri = uri;
    this.root = root;
  }

  @Override
  public String uri() {
    return uri;
  }

  private Path path(String name) {
    Path p = root.resolve(name).normalize();
    if (!p.startsWith(root)) {
      throw new IllegalArgumentException("file name leaves the backup: " + name);
    }
    return p;
  }

  @Override
  public OutputStream create(String name) throws IOException {
    Path target = path(name);
    Files.createDirectories(target.getParent());
    Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
    OutputStream out = Files.newOutputStream(tmp);
    return new PublishOnClose(out, () -> {
      out.close();
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    });
  }

  @Override
  public InputStream open(String name) throws IOException {
    return Files.newInputStream(path(name));
  }

  @Override
  public Optional<Long> size(String name) throws IOException {
    Path p = path(name);
    return Files.isRegularFile(p) ? Optional.of(Files.size(p)) : Optional.empty();
  }

  @Override
  public List<String> childrenHolding(String name) throws IOException {
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(root)) {
      return s.filter(p -> Files.isRegularFile(p.resolve(name))).map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Override
  public Destination child(String child) {
    return new FileDestination(uri.endsWith("/") ? uri + child : uri + "/" + child, path(child));
  }

  @Override
  public void close() {
    // nothing held open
  }
}
