package dev.rangekv.bench.backup;

import com.google.protobuf.ByteString;
import com.google.protobuf.util.JsonFormat;
import dev.rangekv.cli.RangeKvCommand;
import dev.rangekv.client.ClientOptions;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.key.Key;
import dev.rangekv.proto.backup.BackupFile;
import dev.rangekv.proto.backup.BackupManifest;
import dev.rangekv.proto.backup.BackupRange;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.rocksdb.EnvOptions;
import org.rocksdb.IngestExternalFileOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.SstFileWriter;

/**
 * Generates {@code MiB} MiB in {@code ranges} ranges of random (incompressible) values as SST files
 * with RocksDB's SstFileWriter (the baseline write speed) and ingests them into a plain RocksDB (the
 * baseline ingest speed); then, against a {@code nodes}-node in-JVM cluster: {@code rangekv restore} of
 * those files as a backup, {@code rangekv backup create} of the restored data, and the p50/p99 latency
 * of {@code writers} closed-loop writers to another range with no backup, during an unlimited backup and
 * during one at {@code rate}. Usage: {@code BackupBenchmark [MiB=1024] [ranges=100] [nodes=1] [writers=4] [rate=20MB]}.
 */
public final class BackupBenchmark {
  private static final int VALUE_BYTES = 1000;

  private BackupBenchmark() {}

  public static void main(String[] args) throws Exception {
    long mib = args.length > 0 ? Long.parseLong(args[0]) : 1024;
    int ranges = args.length > 1 ? Integer.parseInt(args[1]) : 100;
    int nodes = args.length > 2 ? Integer.parseInt(args[2]) : 1;
    int writers = args.length > 3 ? Integer.parseInt(args[3]) : 4;
    String rate = args.length > 4 ? args[4] : "20MB";
    RocksDB.loadLibrary();
    Path dir = Files.createTempDirectory("rangekv-backup-bench");
    long keysPerRange = (mib << 20) / ranges / (VALUE_BYTES + 16);
    long keys = keysPerRange * ranges;

    long t0 = System.nanoTime();
    BackupManifest source = generate(dir.resolve("source"), ranges, keysPerRange);
    double genSecs = (System.nanoTime() - t0) / 1e9;
    long bytes = source.getRangesList().stream().flatMap(r -> r.getFilesList().stream()).mapToLong(BackupFile::getSize).sum();
    report("rocksdb SstFileWriter (baseline write)", bytes, keys, genSecs);

    t0 = System.nanoTime();
    rawIngest(dir.resolve("source"), dir.resolve("raw"), source);
    report("rocksdb ingestExternalFile (baseline ingest, copying)", bytes, keys, (System.nanoTime() - t0) / 1e9);

    try (LocalCluster cluster = LocalCluster.start(nodes, dir.resolve("cluster"), RaftTuning.defaults(),
        ControllerConfig.builder().build())) {
      String address = cluster.config(0).clientAddress();
      t0 = System.nanoTime();
      cli("restore", "--from", dir.resolve("source").toUri().toString(), "--cluster", address, "--timeout", "60s");
      report("rangekv restore (" + nodes + " node" + (nodes > 1 ? "s" : "") + ")", bytes, keys,
          (System.nanoTime() - t0) / 1e9);
      t0 = System.nanoTime();
      cli("backup", "create", "--to", dir.resolve("b1").toUri().toString(), "--span", "b/", "--cluster", address,
          "--timeout", "60s");
      report("rangekv backup create (unlimited)", bytes, keys, (System.nanoTime() - t0) / 1e9);

      try (RangeKvClient client = RangeKvClient.connect(List.of(address), ClientOptions.defaults())) {
        cli("presplit", "--at", "w/", "--cluster", address);
        Writers w = new Writers(client, writers);
        w.phase("no backup", () -> sleepSeconds(15));
        w.phase("backup, unlimited", () -> cli("backup", "create", "--to", dir.resolve("b2").toUri().toString(),
            "--span", "b/", "--cluster", address, "--timeout", "60s"));
        w.phase("backup, --rate " + rate, () -> cli("backup", "create", "--to", dir.resolve("b3").toUri().toString(),
            "--span", "b/", "--cluster", address, "--timeout", "60s", "--rate", rate));
        w.stop();
      }
    } finally {
      deleteTree(dir);
    }
  }

  static void report(String what, long bytes, long keys, double secs) {
    System.out.printf("%-55s %8.1f s %8.1f MB/s %10.0f keys/s%n", what, secs, bytes / 1e6 / secs, keys / secs);
  }

  static void cli(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = RangeKvCommand.run(args, new PrintWriter(out), new PrintWriter(err));
    if (exit != 0) {
      throw new IllegalStateException("rangekv " + String.join(" ", args) + " exited " + exit + ": " + err + out);
    }
    String[] lines = out.toString().strip().split("\n");
    System.out.println("  " + lines[lines.length - 1]);
  }

  static void sleepSeconds(int s) {
    try {
      Thread.sleep(s * 1000L);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One SST file per range under {@code dir/data/}, and a finished manifest for the span "b/". */
  static BackupManifest generate(Path dir, int ranges, long keysPerRange) throws Exception {
    BackupManifest.Builder m = BackupManifest.newBuilder().setFormat(1).setBackupId("generated").setVersion("bench")
        .setSpanStart(ByteString.copyFromUtf8("b/")).setSpanEnd(ByteString.copyFromUtf8("b0"))
        .setStartedAtMillis(System.currentTimeMillis());
    SplittableRandom random = new SplittableRandom(42);
    byte[] value = new byte[VALUE_BYTES];
    try (Options options = new Options(); EnvOptions env = new EnvOptions()) {
      for (int r = 0; r < ranges; r++) {
        String name = String.format("data/r%d/span-000000.sst", r);
        Path file = dir.resolve(name);
        Files.createDirectories(file.getParent());
        try (SstFileWriter w = new SstFileWriter(env, options)) {
          w.open(file.toString());
          for (long i = 0; i < keysPerRange; i++) {
            random.nextBytes(value);
            w.put(String.format("b/%05d/%08d", r, i).getBytes(StandardCharsets.UTF_8), value);
          }
          w.finish();
        }
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        sha.update(Files.readAllBytes(file));
        m.addRanges(BackupRange.newBuilder().setRangeId(r + 1).setGeneration(1)
            .setStart(ByteString.copyFromUtf8(r == 0 ? "b/" : String.format("b/%05d/", r)))
            .setEnd(ByteString.copyFromUtf8(r == ranges - 1 ? "b0" : String.format("b/%05d/", r + 1)))
            .addFiles(BackupFile.newBuilder().setName(name).setSize(Files.size(file))
                .setSha256(HexFormat.of().formatHex(sha.digest()))));
      }
    }
    BackupManifest done = m.setFinishedAtMillis(System.currentTimeMillis()).build();
    Files.writeString(dir.resolve("manifest.json"), JsonFormat.printer().print(done));
    return done;
  }

  static void rawIngest(Path source, Path db, BackupManifest m) throws Exception {
    try (Options o = new Options().setCreateIfMissing(true); RocksDB rocks = RocksDB.open(o, db.toString());
        IngestExternalFileOptions io = new IngestExternalFileOptions().setMoveFiles(false)) {
      for (BackupRange r : m.getRangesList()) {
        rocks.ingestExternalFile(r.getFilesList().stream().map(f -> source.resolve(f.getName()).toString()).toList(), io);
      }
    }
  }

  /** Closed-loop writers of 100-byte values to keys under "w/", recording each write's latency. */
  static final class Writers {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Thread> threads = new ArrayList<>();
    private final List<long[]> samples = new ArrayList<>();
    private volatile List<Long> current = java.util.Collections.synchronizedList(new ArrayList<>());

    Writers(RangeKvClient client, int n) {
      for (int t = 0; t < n; t++) {
        int id = t;
        Thread th = new Thread(() -> {
          byte[] v = new byte[100];
          long i = 0;
          while (!stop.get()) {
            long s = System.nanoTime();
            client.put(Key.utf8("w/" + id + "/" + (i++ % 10_000)), v);
            current.add(System.nanoTime() - s);
          }
        }, "writer-" + t);
        th.start();
        threads.add(th);
      }
    }

    void phase(String name, Runnable during) {
      current = java.util.Collections.synchronizedList(new ArrayList<>());
      long t0 = System.nanoTime();
      during.run();
      double secs = (System.nanoTime() - t0) / 1e9;
      long[] lat;
      synchronized (current) {
        lat = current.stream().mapToLong(Long::longValue).toArray();
      }
      Arrays.sort(lat);
      samples.add(lat);
      System.out.printf("writes, %-28s %6.1f s %8.0f writes/s  p50 %6.2f ms  p99 %7.2f ms%n", name, secs,
          lat.length / secs, lat.length == 0 ? 0 : lat[lat.length / 2] / 1e6,
          lat.length == 0 ? 0 : lat[(int) (lat.length * 0.99)] / 1e6);
    }

    void stop() throws InterruptedException {
      stop.set(true);
      for (Thread t : threads) {
        t.join();
      }
    }
  }

  static void deleteTree(Path dir) throws java.io.IOException {
    try (var s = Files.walk(dir)) {
      for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
