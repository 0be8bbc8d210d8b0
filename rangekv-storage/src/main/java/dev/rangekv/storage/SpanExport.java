package dev.rangekv.storage;

import java.nio.file.Path;
import java.util.List;

/**
 * The SST files a span was exported into, in key order (no file overlaps the next).
 *
 * @param files the files, each at most the requested size (plus one entry); empty for an empty span
 * @param keys entries exported
 * @param bytes total size of the files on disk
 */
public record SpanExport(List<Path> files, long keys, long bytes) {
  public SpanExport {
    files = List.copyOf(files);
  }
}
