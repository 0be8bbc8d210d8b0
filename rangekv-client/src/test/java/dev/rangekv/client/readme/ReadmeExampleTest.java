package dev.rangekv.client.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The README's "Use from Java" example is {@link Orders} line for line, so compiling Orders compiles it. */
class ReadmeExampleTest {

  @Test
  void readmeExample_isOrdersJava_lineForLine() throws IOException {
    String readme = Files.readString(Path.of("..", "README.md"));
    int section = readme.indexOf("## Use from Java");
    assertThat(section).as("README section \"Use from Java\"").isNotNegative();
    int start = readme.indexOf("```java\n", section) + "```java\n".length();
    String example = readme.substring(start, readme.indexOf("```", start));

    String orders = Files.readString(Path.of("src/test/java/dev/rangekv/client/readme/Orders.java"));
    List<String> source = code(orders).stream()
        .filter(l -> !l.startsWith("package ") && !l.startsWith("/**") && !l.equals("  private Orders() {}"))
        .toList();
    assertThat(code(example)).isEqualTo(source);
  }

  /** The non-blank lines, trailing spaces dropped. */
  private static List<String> code(String text) {
    return text.lines().map(String::stripTrailing).filter(l -> !l.isEmpty()).toList();
  }
}
