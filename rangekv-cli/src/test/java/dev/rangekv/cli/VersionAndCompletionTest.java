package dev.rangekv.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class VersionAndCompletionTest {
  @Test
  void version_namesTheBuildsCommitAndTime() {
    CliRun r = CliRun.ok(CliRun.of("--version"));
    assertThat(r.out()).containsPattern("rangekv \\d+\\.\\d+\\.\\d+")
        .containsPattern("commit ([0-9a-f]{12}|unknown)")
        .containsPattern("built \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
  }

  @Test
  void completion_printsABashScriptCoveringSubcommandsAndOptions() {
    CliRun r = CliRun.ok(CliRun.of("completion"));
    assertThat(r.out()).startsWith("#!/usr/bin/env bash").contains("complete -F _complete_rangekv")
        .contains("ranges").contains("--cluster").contains("--config");
  }
}
