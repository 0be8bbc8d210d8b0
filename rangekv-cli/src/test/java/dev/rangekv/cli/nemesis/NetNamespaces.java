package dev.rangekv.cli.nemesis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A private network for node processes: one network namespace per node, each with its own address on a
 * /24, every node's veth plugged into a bridge that lives in a namespace of its own. The test JVM (the
 * clients and the CLI's admin commands) stays in the root namespace and reaches the nodes through one
 * veth from the root namespace to the bridge: its address and connected route are the only things this
 * adds there. Faults act inside the nodes' namespaces only, so a partition between nodes never cuts the
 * test's clients off (a range leader isolated from its followers still hears clients).
 *
 * <p>Faults: a cut between two nodes by {@code blackhole} or {@code unreachable} routes (a local
 * connect fails at once) or by nftables drops (silent: packets vanish, timeouts tell); a one-way drop;
 * random packet loss (nftables {@code numgen}); a slow link (a {@code tbf} qdisc on a node's veth);
 * {@link #heal()} undoes them all. Names carry the test JVM's pid ({@code rkn<pid>-...}): {@link #create}
 * first removes namespaces of earlier runs whose JVM is gone (a killed run never reached {@link #close()}),
 * and a shutdown hook removes this run's if the JVM ends without closing. Thread-safe.
 */
final class NetNamespaces implements AutoCloseable {
  /** How a cut between two nodes behaves. */
  enum Cut {
    /** A {@code blackhole} route: a local send fails at once (EINVAL), incoming replies are discarded. */
    BLACKHOLE,
    /** An {@code unreachable} route: a local send fails at once (EHOSTUNREACH). */
    UNREACHABLE,
    /** nftables drops in both directions: nothing fails, packets vanish. */
    DROP
  }

  private static final String PREFIX = "rkn";
  private static final Pattern STALE = Pattern.compile("^(" + PREFIX + "(\\d+))-\\S+");
  private static final Pattern STALE_HOST_LINK = Pattern.compile("^\\d+: (rkh(\\d+))[@:]");

  private final String run;
  private final String subnet;
  private final Map<String, Integer> index = new LinkedHashMap<>();
  private final List<List<String>> undo = new ArrayList<>();
  private final Thread cleanup = new Thread(this::removeAll, "netns-cleanup");
  private boolean closed;

  private NetNamespaces(String run, String subnet, List<String> ids) {
    this.run = run;
    this.subnet = subnet;
    for (int i = 0; i < ids.size(); i++) {
      index.put(ids.get(i), i + 1);
    }
  }

  /**
   * Checks what the harness needs (installing nftables if it can), removes stale namespaces, and makes the
   * network for {@code ids}; fails with what is missing when the machine cannot.
   */
  static NetNamespaces create(List<String> ids) throws IOException, InterruptedException {
    checkPrerequisites();
    // one test JVM at a time picks a subnet and claims it (its host link's route): the IT forks run side by side
    try (FileChannel channel = FileChannel.open(Path.of(System.getProperty("java.io.tmpdir"), "rangekv-netns.lock"),
        StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      channel.lock(); // held until the channel closes
      removeStale();
      long pid = ProcessHandle.current().pid();
      NetNamespaces net = new NetNamespaces(PREFIX + pid, freeSubnet(pid), ids);
      Runtime.getRuntime().addShutdownHook(net.cleanup);
      try {
        net.setUp();
      } catch (IOException | RuntimeException e) {
        net.close();
        throw e;
      }
      return net;
    }
  }

  /** Node {@code id}'s address (its namespace's veth). */
  String address(String id) {
    return subnet + "." + index.get(id);
  }

  /** {@code cmd} run inside node {@code id}'s namespace ({@code ip netns exec} execs it: same pid). */
  List<String> wrap(String id, List<String> cmd) {
    List<String> all = new ArrayList<>(List.of("ip", "netns", "exec", ns(id)));
    all.addAll(cmd);
    return all;
  }

  /** Cuts {@code a} and {@code b} apart, both ways. */
  synchronized void cut(String a, String b, Cut how) throws IOException, InterruptedException {
    switch (how) {
      case BLACKHOLE, UNREACHABLE -> {
        String type = how.name().toLowerCase(java.util.Locale.ROOT);
        route(a, type, b);
        route(b, type, a);
      }
      case DROP -> {
        drop(a, b);
        drop(b, a);
      }
    }
  }

  /** Silently drops every packet from {@code from} to {@code to}; the other direction still flows. */
  synchronized void drop(String from, String to) throws IOException, InterruptedException {
    nft(to, "add rule inet rk input ip saddr " + address(from) + " drop");
  }

  /** Drops {@code percent} of the packets node {@code id} receives from other nodes, at random. */
  synchronized void loss(String id, int percent) throws IOException, InterruptedException {
    nft(id, "add rule inet rk input ip saddr != " + hostAddress() + " numgen random mod 100 < " + percent + " drop");
  }

  /** Shapes everything node {@code id} sends to {@code rate} (a {@code tc} rate, e.g. {@code 256kbit}). */
  synchronized void slow(String id, String rate) throws IOException, InterruptedException {
    sh(wrap(id, List.of("tc", "qdisc", "add", "dev", "eth0", "root", "tbf", "rate", rate, "burst", "16kbit",
        "latency", "400ms")));
    undo.add(wrap(id, List.of("tc", "qdisc", "del", "dev", "eth0", "root")));
  }

  /** Removes every route, drop, loss rule and shaper added since the last heal. */
  synchronized void heal() throws IOException, InterruptedException {
    for (String id : index.keySet()) {
      sh(wrap(id, List.of("nft", "flush", "chain", "inet", "rk", "input")));
    }
    for (List<String> cmd : undo) {
      sh(cmd);
    }
    undo.clear();
  }

  private void route(String in, String type, String to) throws IOException, InterruptedException {
    sh(List.of("ip", "-n", ns(in), "route", "add", type, address(to) + "/32"));
    undo.add(List.of("ip", "-n", ns(in), "route", "del", type, address(to) + "/32"));
  }

  private void nft(String id, String rule) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("nft"));
    cmd.addAll(List.of(rule.split(" ")));
    sh(wrap(id, cmd));
  }

  private String hostAddress() {
    return subnet + ".254";
  }

  private String ns(String id) {
    return run + "-" + id;
  }

  private String bridgeNs() {
    return run + "-br";
  }

  private String hostLink() {
    return "rkh" + run.substring(PREFIX.length());
  }

  private void setUp() throws IOException, InterruptedException {
    String br = bridgeNs();
    sh(List.of("ip", "netns", "add", br));
    sh(List.of("ip", "-n", br, "link", "add", "br0", "type", "bridge"));
    sh(List.of("ip", "-n", br, "link", "set", "br0", "up"));
    for (Map.Entry<String, Integer> e : index.entrySet()) {
      String ns = ns(e.getKey());
      String port = "v" + e.getValue();
      sh(List.of("ip", "netns", "add", ns));
      sh(List.of("ip", "-n", br, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", ns));
      sh(List.of("ip", "-n", br, "link", "set", port, "master", "br0"));
      sh(List.of("ip", "-n", br, "link", "set", port, "up"));
      sh(List.of("ip", "-n", ns, "addr", "add", address(e.getKey()) + "/24", "dev", "eth0"));
      sh(List.of("ip", "-n", ns, "link", "set", "eth0", "up"));
      sh(List.of("ip", "-n", ns, "link", "set", "lo", "up"));
      sh(wrap(e.getKey(), List.of("nft", "add", "table", "inet", "rk")));
      sh(wrap(e.getKey(), List.of("nft", "add", "chain", "inet", "rk", "input",
          "{ type filter hook input priority 0 ; }")));
    }
    // the one link into the root namespace: the test's clients reach the nodes through it
    sh(List.of("ip", "link", "add", hostLink(), "type", "veth", "peer", "name", "host", "netns", br));
    sh(List.of("ip", "-n", br, "link", "set", "host", "master", "br0"));
    sh(List.of("ip", "-n", br, "link", "set", "host", "up"));
    sh(List.of("ip", "addr", "add", hostAddress() + "/24", "dev", hostLink()));
    sh(List.of("ip", "link", "set", hostLink(), "up"));
  }

  /** Deletes this run's namespaces (the host link goes with its peer in the bridge's namespace). */
  private synchronized void removeAll() {
    if (closed) {
      return;
    }
    closed = true;
    List<String> names = new ArrayList<>(index.keySet().stream().map(this::ns).toList());
    names.add(bridgeNs());
    for (String name : names) {
      quiet(List.of("ip", "netns", "del", name));
    }
    quiet(List.of("ip", "link", "del", hostLink()));
  }

  @Override
  public void close() {
    removeAll();
    try {
      Runtime.getRuntime().removeShutdownHook(cleanup);
    } catch (IllegalStateException shuttingDown) {
      // the hook is running or ran: nothing left to remove
    }
  }

  /** Namespaces and host links named after a JVM that no longer runs: an earlier run killed before it cleaned up. */
  private static void removeStale() throws IOException, InterruptedException {
    for (String line : sh(List.of("ip", "netns", "list")).lines().toList()) {
      Matcher m = STALE.matcher(line);
      if (m.find() && ProcessHandle.of(Long.parseLong(m.group(2))).isEmpty()) {
        quiet(List.of("ip", "netns", "del", line.split(" ")[0]));
      }
    }
    for (String line : sh(List.of("ip", "-o", "link", "show")).lines().toList()) {
      Matcher m = STALE_HOST_LINK.matcher(line);
      if (m.find() && ProcessHandle.of(Long.parseLong(m.group(2))).isEmpty()) {
        quiet(List.of("ip", "link", "del", m.group(1)));
      }
    }
  }

  /** A 10.251.x.0/24 the root namespace has no route for (another run's, or the machine's own). */
  private static String freeSubnet(long pid) throws IOException, InterruptedException {
    for (int i = 0; i < 250; i++) {
      String subnet = "10.251." + ((pid + i) % 250);
      if (sh(List.of("ip", "route", "show", subnet + ".0/24")).isBlank()) {
        return subnet;
      }
    }
    throw new IllegalStateException("no free 10.251.x.0/24 for the test network: every one has a route");
  }

  private static void checkPrerequisites() throws IOException, InterruptedException {
    Path script = Files.createTempFile("net-prereqs", ".sh");
    try (InputStream in = NetNamespaces.class.getResourceAsStream("/net/net-prereqs.sh")) {
      if (in == null) {
        throw new IllegalStateException("net/net-prereqs.sh is not on the test classpath");
      }
      Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
    }
    try {
      Result r = exec(List.of("bash", script.toString()), 300);
      if (r.exit() != 0) {
        throw new AssertionError("the network fault tests cannot run on this machine:\n" + r.out().strip());
      }
    } finally {
      Files.deleteIfExists(script);
    }
  }

  private record Result(int exit, String out) {}

  private static String sh(List<String> cmd) throws IOException, InterruptedException {
    Result r = exec(cmd, 30);
    if (r.exit() != 0) {
      throw new IOException(String.join(" ", cmd) + " -> exit " + r.exit() + ": " + r.out().strip());
    }
    return r.out();
  }

  private static void quiet(List<String> cmd) {
    try {
      exec(cmd, 30);
    } catch (IOException e) {
      // best effort during cleanup: the next run's removeStale() retries
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static Result exec(List<String> cmd, int seconds) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", cmd) + " did not finish in " + seconds + " s");
    }
    return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
  }
}
