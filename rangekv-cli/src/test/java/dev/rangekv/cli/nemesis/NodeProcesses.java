package dev.rangekv.cli.nemesis;

import dev.rangekv.cli.process.CliProcess;
import dev.rangekv.server.node.NodeConfig;
import dev.rangekv.testkit.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * N {@code rangekv start} processes, each started from the test classpath with its output in a log
 * file: started, killed with SIGKILL, paused with SIGSTOP and resumed with SIGCONT, restarted on their
 * data directories. On free loopback ports, or, given {@link NetNamespaces}, each in its own network
 * namespace on its own address (fixed ports). {@link #close()} kills every process this object started.
 * Thread-safe.
 */
public final class NodeProcesses implements AutoCloseable {
  /** One node's fixed identity: id, client and Raft addresses, data directory. */
  record Node(String id, String client, String raft, Path dataDir) {}

  private final Path logs;
  private final Map<String, Node> nodes = new LinkedHashMap<>();
  private final Map<String, Process> running = new ConcurrentHashMap<>();
  private final Map<String, Path> currentLog = new ConcurrentHashMap<>();
  private final Set<String> paused = ConcurrentHashMap.newKeySet();
  private final List<String> settings;
  private final java.util.Optional<NetNamespaces> net;
  private final java.util.function.Function<String, List<String>> jvmOptions;
  /** Further {@code rangekv start} options of every node (e.g. {@code --engine multiraft}). */
  private final List<String> options;
  private int starts;
  private boolean closed;

  /** Nodes n1..nN on loopback with {@code --set} {@code settings} and further start {@code options}. */
  public NodeProcesses(Path dataRoot, Path logs, int n, List<String> settings, List<String> options) throws IOException {
    this(dataRoot, logs, ids(n), settings, java.util.Optional.empty(), id -> List.of(), options);
  }

  /**
   * Nodes {@code ids} with {@code --set} {@code settings}, in namespaces of {@code net} if given, each JVM
   * with {@code jvmOptions.apply(id)} added (the clock agent of a clock-fault test).
   */
  NodeProcesses(Path dataRoot, Path logs, List<String> ids, List<String> settings,
      java.util.Optional<NetNamespaces> net, java.util.function.Function<String, List<String>> jvmOptions)
      throws IOException {
    this(dataRoot, logs, ids, settings, net, jvmOptions, List.of());
  }

  private NodeProcesses(Path dataRoot, Path logs, List<String> ids, List<String> settings,
      java.util.Optional<NetNamespaces> net, java.util.function.Function<String, List<String>> jvmOptions,
      List<String> options) throws IOException {
    this.logs = logs;
    this.settings = List.copyOf(settings);
    this.net = net;
    this.jvmOptions = jvmOptions;
    this.options = List.copyOf(options);
    Files.createDirectories(logs);
    for (String id : ids) {
      // in a namespace of its own a node has its own address, so fixed ports cannot clash
      String host = net.map(x -> x.address(id)).orElse("127.0.0.1");
      nodes.put(id, new Node(id, host + ":" + (net.isPresent() ? 7100 : NodeConfig.freePort()),
          host + ":" + (net.isPresent() ? 7101 : NodeConfig.freePort()), dataRoot.resolve(id)));
    }
  }

  /** Node ids n1..nN. */
  static List<String> ids(int n) {
    List<String> ids = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      ids.add("n" + i);
    }
    return ids;
  }

  public List<String> ids() {
    return List.copyOf(nodes.keySet());
  }

  public List<String> addresses() {
    return nodes.values().stream().map(Node::client).toList();
  }

  public String cluster() {
    return String.join(",", addresses());
  }

  /** Starts node {@code id}; {@code join} empty bootstraps (only the first start of the first node). */
  public synchronized void start(String id, List<String> join) throws IOException {
    if (closed) {
      throw new IllegalStateException("closed: " + id + " is not started again");
    }
    Node n = nodes.get(id);
    List<String> args = new ArrayList<>(List.of("start", "--node-id", id, "--listen", n.client(),
        "--raft-listen", n.raft(), "--data-dir", n.dataDir().toString(), "--insecure"));
    for (String s : settings) {
      args.addAll(List.of("--set", s));
    }
    if (!join.isEmpty()) {
      args.addAll(List.of("--join", String.join(",", join)));
    }
    args.addAll(options);
    Path log = logs.resolve(id + "-" + (++starts) + ".log");
    currentLog.put(id, log);
    // the JVM options of process.CliProcess: C1 only, a test node lives minutes
    List<String> cmd = CliProcess.command(jvmOptions.apply(id), args);
    running.put(id, new ProcessBuilder(net.map(x -> x.wrap(id, cmd)).orElse(cmd)).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start());
  }

  /**
   * Restarts a killed node on its data directory, joining through every other node (so a restarted
   * bootstrap node never bootstraps again), and waits until it says it resumed.
   */
  public void restart(String id, Duration timeout) throws IOException, InterruptedException {
    start(id, addresses().stream().filter(a -> !a.equals(nodes.get(id).client())).toList());
    awaitLog(id, "resumed from its data directory", timeout);
  }

  /** SIGKILL: the process gets no chance to flush or say goodbye. */
  public void kill(String id) throws InterruptedException {
    Process p = running.remove(id);
    if (p != null) {
      p.destroyForcibly(); // SIGKILL on Unix, also for a stopped process
      p.waitFor(30, TimeUnit.SECONDS);
    }
    paused.remove(id);
  }

  void pause(String id) throws IOException, InterruptedException {
    signal(id, "-STOP");
    paused.add(id);
  }

  void resume(String id) throws IOException, InterruptedException {
    signal(id, "-CONT");
    paused.remove(id);
  }

  boolean isRunning(String id) {
    Process p = running.get(id);
    return p != null && p.isAlive();
  }

  private void signal(String id, String sig) throws IOException, InterruptedException {
    Process p = running.get(id);
    if (p == null) {
      return;
    }
    Process kill = new ProcessBuilder("kill", sig, Long.toString(p.pid())).redirectErrorStream(true).start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IllegalStateException("kill " + sig + " " + p.pid() + " failed");
    }
  }

  public String log(String id) {
    Path log = currentLog.get(id);
    try {
      return log != null && Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits (bounded) until node {@code id}'s current log contains {@code needle}; fails if it exits. */
  public void awaitLog(String id, String needle, Duration timeout) {
    // polling a log file; no event to wait on
    Await.until(timeout, Duration.ofMillis(200), id + ": '" + needle + "'", () -> {
      if (log(id).contains(needle)) {
        return true;
      }
      Process p = running.get(id);
      if (p == null || !p.isAlive()) {
        throw new AssertionError(id + " exited before '" + needle + "'; log:\n" + tail(log(id)));
      }
      return false;
    }, () -> "; log:\n" + tail(log(id)));
  }

  /**
   * For a failed run: each node's process state as {@code ps} shows it (T = stopped) and a thread dump
   * (jstack) into the log directory; returns the states.
   */
  String diagnose() {
    StringBuilder out = new StringBuilder();
    for (Map.Entry<String, Process> e : running.entrySet()) {
      long pid = e.getValue().pid();
      out.append(e.getKey()).append(" pid=").append(pid).append(" alive=").append(e.getValue().isAlive())
          .append(" paused=").append(paused.contains(e.getKey())).append(" ps=")
          .append(run(List.of("ps", "-o", "stat=", "-p", Long.toString(pid))).strip()).append('\n');
      String dump = run(List.of(Path.of(System.getProperty("java.home"), "bin", "jstack").toString(), Long.toString(pid)));
      try {
        Files.writeString(logs.resolve(e.getKey() + "-jstack.txt"), dump, StandardCharsets.UTF_8);
      } catch (IOException io) {
        out.append("  (jstack not written: ").append(io).append(")\n");
      }
    }
    return out.toString();
  }

  private static String run(List<String> cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      byte[] bytes = p.getInputStream().readAllBytes();
      p.waitFor(30, TimeUnit.SECONDS);
      return new String(bytes, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(" + cmd.get(0) + " failed: " + e + ")";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "(interrupted)";
    }
  }

  private static String tail(String s) {
    return s.length() <= 4000 ? s : s.substring(s.length() - 4000);
  }

  @Override
  public void close() {
    synchronized (this) {
      closed = true; // a nemesis thread still running may not start a node after this
    }
    for (String id : List.copyOf(running.keySet())) {
      try {
        kill(id);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // keep killing: every process must go
        Process p = running.remove(id);
        if (p != null) {
          p.destroyForcibly();
        }
      }
    }
  }
}
