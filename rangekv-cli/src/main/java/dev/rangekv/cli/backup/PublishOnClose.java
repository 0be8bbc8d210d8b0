package dev.rangekv.cli.backup;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A stream onto a local spool file that publishes it once, on the first close (renamed into place, or
 * uploaded), so a backup file appears whole or not at all. Not thread-safe, like the stream it wraps.
 */
final class PublishOnClose extends FilterOutputStream {
  /** Closes the spool and publishes it; runs at most once. */
  interface Publish {
    void run() throws IOException;
  }

  private final Publish publish;
  private boolean closed;

  PublishOnClose(OutputStream spool, Publish publish) {
    super(spool);
    this.publish = publish;
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    out.write(b, off, len); // FilterOutputStream would write byte by byte
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    publish.run();
  }
}
