package dev.rangekv.cli.backup;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.Optional;

/**
 * Where a backup's files live, by names relative to the backup's root ({@code manifest.json},
 * {@code data/r12-i345/span-000000.sst}). A file written through {@link #create} appears whole when
 * the stream closes, or not at all. Not thread-safe unless an implementation says so.
 */
public interface Destination extends AutoCloseable {
  /** The backup's URI, as given. */
  String uri();

  /** A new file (replacing one of the same name) that appears when the stream is closed. */
  OutputStream create(String name) throws IOException;

  /** Reads a file; {@link java.nio.file.NoSuchFileException} when there is none. */
  InputStream open(String name) throws IOException;

  /** The file's size, if it exists. */
  Optional<Long> size(String name) throws IOException;

  /** The names of the immediate sub-folders of the root that hold a file called {@code name}. */
  List<String> childrenHolding(String name) throws IOException;

  /** A destination rooted at the sub-folder {@code child}. */
  Destination child(String child) throws IOException;

  @Override
  void close();
}
