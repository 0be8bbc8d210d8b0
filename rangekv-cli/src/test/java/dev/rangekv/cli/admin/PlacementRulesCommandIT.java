package dev.rangekv.cli.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.cli.CliRun;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code rangekv placement} against a one-node cluster with a meta range, in zone eu-1. */
@Timeout(120)
class PlacementRulesCommandIT {
  @TempDir static Path dir;
  static LocalCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = LocalCluster.startZoned(List.of("eu-1"), dir, RaftTuning.forTests(), ControllerConfig.builder().build());
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  static CliRun run(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--cluster");
    all.add(cluster.config(0).clientAddress());
    return CliRun.of(all.toArray(String[]::new));
  }

  @Test
  void set_list_remove_aTenantPinnedToItsZone() {
    CliRun set = run("placement", "set", "--span", "tenant/42/", "--zones", "eu-1", "--replicas", "1");
    assertThat(set.exit()).as(set.toString()).isZero();
    assertThat(set.out()).contains("rule [tenant/42/, tenant/420) replicas=1 zones=eu-1 set (version");

    CliRun list = run("placement", "list", "--json");
    assertThat(list.exit()).as(list.toString()).isZero();
    assertThat(list.out()).contains("\"start\":\"tenant/42/\"").contains("\"zones\":[\"eu-1\"]")
        .contains("\"rangesOutOfConformance\":0");

    CliRun table = run("placement", "list");
    assertThat(table.out()).contains("SPAN").contains("[tenant/42/, tenant/420)");

    CliRun removed = run("placement", "remove", "--span", "tenant/42/");
    assertThat(removed.exit()).as(removed.toString()).isZero();
    assertThat(removed.out()).contains("removed");
    CliRun again = run("placement", "remove", "--span", "tenant/42/");
    assertThat(again.exit()).isNotZero();
    assertThat(again.err()).contains("no placement rule for the span");
    assertThat(again.err().strip().lines().count()).isEqualTo(1);
  }

  @Test
  void aRuleNoNodeCanMeet_isRefusedInOneLine_andOneMetLaterIsAcceptedWithAWarning() {
    CliRun refused = run("placement", "set", "--span", "tenant/7/", "--zones", "us-1");
    assertThat(refused.exit()).isNotZero();
    assertThat(refused.err()).contains("rule refused: no node in the cluster satisfies").doesNotContain("Exception");
    assertThat(refused.err().strip().lines().count()).isEqualTo(1);

    CliRun warned = run("placement", "set", "--start", "a", "--end", "b", "--leaders", "eu-2");
    assertThat(warned.exit()).as(warned.toString()).isZero();
    assertThat(warned.out()).contains("warning: leader zone eu-2 has no live eligible node");
  }

  @Test
  void malformedRules_areUsageErrors() {
    assertThat(run("placement", "set", "--span", "t/", "--replicas", "2").exit()).isEqualTo(2);
    CliRun bad = run("placement", "set", "--span", "t/", "--constraint", "zone=eu-1");
    assertThat(bad.exit()).isEqualTo(2);
    assertThat(bad.err()).contains("expected +key=value or -key=value");
  }
}
