package dev.rangekv.cli.backup;

import dev.rangekv.proto.backup.BackupFile;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.NoSuchFileException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

/** Reads a backup file back and compares its size and SHA-256 with what the manifest says. */
final class FileCheck {
  private FileCheck() {}

  /** Why {@code f} at {@code dest} does not match the manifest; empty when it does. */
  static Optional<String> problem(Destination dest, BackupFile f) {
    MessageDigest sha = sha256();
    long size = 0;
    try (InputStream in = dest.open(f.getName())) {
      byte[] buf = new byte[1 << 16];
      for (int n; (n = in.read(buf)) > 0; ) {
        sha.update(buf, 0, n);
        size += n;
      }
    } catch (NoSuchFileException e) {
      return Optional.of("file " + f.getName() + " is missing");
    } catch (IOException e) {
      return Optional.of("file " + f.getName() + " cannot be read: " + e.getMessage());
    }
    if (size != f.getSize()) {
      return Optional.of("file " + f.getName() + " is truncated or grown: " + size + " bytes, the manifest says "
          + f.getSize());
    }
    String hex = HexFormat.of().formatHex(sha.digest());
    if (!hex.equals(f.getSha256())) {
      return Optional.of("file " + f.getName() + " is corrupt: sha256 " + hex + ", the manifest says " + f.getSha256());
    }
    return Optional.empty();
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
