package dev.rangekv.server.node;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * What a node's start has opened so far, closed in reverse order when a later step fails (its client
 * port already in use, say): a failed start leaves no store lock, Ratis server or thread behind in a
 * JVM that goes on (tests, the demo, a retried start).
 */
final class StartupUndo {
  private final Deque<AutoCloseable> opened = new ArrayDeque<>();

  /** Remembers {@code closer} to run if the start fails. */
  void onFailure(AutoCloseable closer) {
    opened.push(closer);
  }

  /** Closes everything opened so far, newest first; what fails to close is added to {@code cause}. */
  void undo(Throwable cause) {
    while (!opened.isEmpty()) {
      try {
        opened.pop().close();
      } catch (Exception e) {
        cause.addSuppressed(e);
      }
    }
  }
}
