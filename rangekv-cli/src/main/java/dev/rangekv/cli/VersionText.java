package dev.rangekv.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;

/**
 * {@code rangekv --version}: the version, git commit and build time the build wrote into
 * {@code version.properties} (resource filtering); "unknown" for what the build could not tell (e.g. a
 * commit when built outside a git checkout).
 */
public final class VersionText implements CommandLine.IVersionProvider {
  @Override
  public String[] getVersion() throws IOException {
    Properties p = new Properties();
    try (InputStream in = VersionText.class.getResourceAsStream("version.properties")) {
      if (in != null) {
        p.load(in);
      }
    }
    return new String[] {"rangekv " + value(p, "version"), "commit " + value(p, "commit"), "built " + value(p, "built"),
        "java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")"};
  }

  /** A filtered value, or "unknown" when the build left it empty or unfiltered. */
  private static String value(Properties p, String name) {
    String v = p.getProperty(name, "").strip();
    return v.isEmpty() || v.startsWith("${") ? "unknown" : v;
  }
}
