package dev.rangekv.testkit.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in the repository's Markdown (README, CONTRIBUTING, BENCHMARKS, docs/) points at a
 * file that exists and, when it names a section, at a heading that exists there, as GitHub anchors them.
 */
class MarkdownLinksTest {

  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6}\\s+(.+?)\\s*#*$");

  @Test
  void everyRelativeLink_resolvesToAFileAndHeading() throws IOException {
    Path root = PackageDocsTest.repositoryRoot(Path.of("").toAbsolutePath());
    List<String> broken = new ArrayList<>();
    for (Path md : markdownFiles(root)) {
      String text = withoutCodeBlocks(SourceIndex.text(md));
      Matcher link = LINK.matcher(text);
      while (link.find()) {
        String target = link.group(1);
        if (target.matches("^[a-z]+:.*")) {
          continue;
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        Path resolved = file.isEmpty() ? md : md.getParent().resolve(file).normalize();
        if (!Files.exists(resolved)) {
          broken.add(root.relativize(md) + ": " + target + " (no such file)");
        } else if (hash >= 0 && !anchors(SourceIndex.text(resolved)).contains(target.substring(hash + 1))) {
          broken.add(root.relativize(md) + ": " + target + " (no such heading)");
        }
      }
    }
    assertThat(broken).isEmpty();
  }

  @Test
  void anchors_followGitHubsRules() {
    assertThat(anchors("## Proposal buffer (step 13): before/after in one sitting\n### `rangekv start`, one node\n"))
        .containsExactlyInAnyOrder("proposal-buffer-step-13-beforeafter-in-one-sitting", "rangekv-start-one-node");
  }

  /** GitHub's heading anchors: lower case, punctuation but hyphens and underscores dropped, spaces to hyphens. */
  static Set<String> anchors(String markdown) {
    Set<String> anchors = new HashSet<>();
    Matcher h = HEADING.matcher(withoutCodeBlocks(markdown));
    while (h.find()) {
      String slug = h.group(1).toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
      String unique = slug;
      for (int n = 1; !anchors.add(unique); n++) {
        unique = slug + "-" + n;
      }
    }
    return anchors;
  }

  private static String withoutCodeBlocks(String markdown) {
    return markdown.replaceAll("(?s)```.*?```", "");
  }

  private static List<Path> markdownFiles(Path root) throws IOException {
    List<Path> files = new ArrayList<>();
    try (Stream<Path> top = Files.list(root)) {
      top.filter(p -> p.toString().endsWith(".md")).forEach(files::add);
    }
    Path docs = root.resolve("docs");
    if (Files.isDirectory(docs)) {
      try (Stream<Path> all = Files.walk(docs)) {
        all.filter(p -> p.toString().endsWith(".md")).forEach(files::add);
      }
    }
    return files;
  }
}
