package dev.rangekv.cli.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.cli.RangeKvCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class PlacementCommandTest {
  private record Run(int exit, String out, String err) {}

  private static Run run(String... args) {
    CommandLine cl = RangeKvCommand.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int exit = cl.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  private static String row(String out, String scheme) {
    return Arrays.stream(out.split("\n")).filter(l -> l.startsWith(scheme)).findFirst().orElseThrow(
        () -> new AssertionError("no row for " + scheme + " in:\n" + out));
  }

  @Test
  void simPlacement_printsOneRowPerScheme_withMovedShareAndWhetherMovesWentToTheNewNode() {
    Run r = run("sim", "placement", "--keys", "2000", "--nodes", "4", "--vnodes", "1,50", "--hash", "xxh64");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("2,000 keys (user:{i}); 4 nodes, then node 4 joins. Ideal share moved: 20.0%")
        .contains("lookup ns");
    for (String scheme : List.of("hash mod N", "ring, 1 point per node", "ring, 50 points per node",
        "rendezvous (HRW)", "jump consistent hash", "ring 100 + bounded load 1.10", "maglev, table 65,537")) {
      assertThat(row(r.out(), scheme)).contains("%");
    }
    assertThat(row(r.out(), "ring, 50 points per node")).contains(" yes ");
    assertThat(row(r.out(), "rendezvous (HRW)")).contains(" yes ");
    assertThat(row(r.out(), "jump consistent hash")).contains(" yes ");
    assertThat(row(r.out(), "hash mod N")).contains(" no ");
  }

  @Test
  void simPlacement_withSeed004Settings_printsTheSeedsFigures() {
    // Seed 004's table uses 100,000 keys; the first 2,000 still show mod N's near-total move.
    Run r = run("sim", "placement", "--keys", "2000", "--vnodes", "10", "--hash", "blake2b64");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(row(r.out(), "hash mod N")).matches("hash mod N\\s+9\\d\\.\\d%\\s+no .*");
  }

  @Test
  void simPlacement_removingANode_reportsWhetherMovesCameOnlyFromIt() {
    Run r = run("sim", "placement", "--keys", "1000", "--nodes", "5", "--remove", "2", "--vnodes", "20");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("then node 2 leaves").contains("from removed?");
    assertThat(row(r.out(), "ring, 20 points per node")).contains(" yes ");
    assertThat(row(r.out(), "jump consistent hash")).contains("n/a");
  }

  @Test
  void simPlacement_skewMode_showsLoadBeforeAndAfterSalting() {
    Run r = run("sim", "placement", "--mode", "skew", "--keys", "1000", "--nodes", "4", "--vnodes", "10",
        "--hot-share", "0.01", "--hot-multiplier", "100", "--salt", "4");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("the first 10 keys get 100x the traffic").contains("salted load/mean");
    assertThat(row(r.out(), "rendezvous (HRW)")).isNotBlank();
  }

  @Test
  void simPlacement_rangeMode_showsMonotonicInsertsOnOneNode() {
    Run r = run("sim", "placement", "--mode", "range", "--keys", "4000", "--nodes", "4", "--split-keys", "200",
        "--window", "50");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(row(r.out(), "pre-split   monotonic")).contains("100%");
    assertThat(row(r.out(), "size-split  monotonic")).contains("100%");
    assertThat(r.out()).contains("size-split  uniform");
  }

  @Test
  void simPlacement_replicasMode_reportsHowOftenZonesChangeTheReplicaSet() {
    Run r = run("sim", "placement", "--mode", "replicas", "--keys", "500", "--nodes", "6", "--zones", "3",
        "--vnodes", "100");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("6 nodes in 3 zones").contains("changed by distinct zones");
    assertThat(row(r.out(), "ring, 100 points per node")).matches(".*\\d+\\.\\d%");
  }

  @Test
  void simPlacement_seed003Settings_reproduceTheModNMoveFromEightToTenShards() {
    // Seed 003: ids "1".."100000", first 8 bytes of MD5; 8 -> 10 shards moves 80.2% of ids.
    Run r = run("sim", "placement", "--hash", "md5", "--key-format", "{i}", "--first-index", "1", "--nodes", "8",
        "--add", "2", "--vnodes", "100");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("then nodes 8..9 join. Ideal share moved: 20.0%");
    assertThat(row(r.out(), "hash mod N")).matches("hash mod N\\s+80\\.2%\\s+no .*");
  }

  @Test
  void simPlacement_badArguments_exitWithUsageCode() {
    assertThat(run("sim", "placement", "--mode", "nope").exit()).isEqualTo(2);
    assertThat(run("sim", "placement", "--hash", "crc32", "--keys", "10").exit()).isEqualTo(2);
    assertThat(run("sim", "placement", "--remove", "99", "--keys", "10").exit()).isEqualTo(2);
    assertThat(run("sim").exit()).isEqualTo(2);
  }
}
