package dev.rangekv.cli.clock;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * The test's side of {@link ClockAgent}: the JVM option that loads the agent into a node process, and
 * the control file through which the test sets that node's clock offset. The agent jar holds only a
 * manifest naming the agent and, on its class path, where the agent's classes and Byte Buddy are.
 */
public final class ClockControl {
  private final Path file;
  private final Path agentJar;
  private Duration raft = Duration.ZERO;
  private Duration wall = Duration.ZERO;

  private ClockControl(Path file, Path agentJar) {
    this.file = file;
    this.agentJar = agentJar;
  }

  /** A control file in {@code dir} (offset 0) and the agent jar beside it. */
  public static ClockControl in(Path dir, String name) throws IOException {
    Files.createDirectories(dir);
    ClockControl c = new ClockControl(dir.resolve(name + ".clock-offset-ms"), agentJar(dir));
    c.write();
    return c;
  }

  /** The JVM option that loads the agent with this control file. */
  public String jvmOption() {
    return "-javaagent:" + agentJar + "=" + file;
  }

  /** Sets the node's Raft clock offset (negative: the clock jumped back); the agent reads it within 20 ms. */
  public synchronized void set(Duration offset) throws IOException {
    raft = offset;
    write();
  }

  /** Sets the node's wall clock offset (negative: the time of day jumped back). */
  public synchronized void setWall(Duration offset) throws IOException {
    wall = offset;
    write();
  }

  private synchronized void write() throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, raft.toMillis() + " " + wall.toMillis(), StandardCharsets.UTF_8);
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private static synchronized Path agentJar(Path dir) throws IOException {
    Path jar = dir.resolve("clock-agent.jar");
    if (Files.exists(jar)) {
      return jar;
    }
    Manifest m = new Manifest();
    m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    m.getMainAttributes().put(new Attributes.Name("Premain-Class"), ClockAgent.class.getName());
    m.getMainAttributes().put(Attributes.Name.CLASS_PATH, String.join(" ", List.of(
        location(ClockAgent.class), location(net.bytebuddy.ByteBuddy.class))));
    try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out, m)) {
      j.flush();
    }
    return jar;
  }

  /** A code source as a manifest class-path entry (a directory must end in a slash). */
  private static String location(Class<?> c) {
    try {
      Path p = Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
      String uri = p.toUri().toString();
      return Files.isDirectory(p) && !uri.endsWith("/") ? uri + "/" : uri;
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException("no location for " + c, e);
    }
  }
}
