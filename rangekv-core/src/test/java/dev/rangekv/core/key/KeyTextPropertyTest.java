package dev.rangekv.core.key;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class KeyTextPropertyTest {
  private static final String[] WORDS = {"events_by_time", "o3832879", "a", "_x", "Zürich", "é", "1a", "-", "a/b",
      "a+b", "q\"t", "b\\s", "two words", "tab\t", "\0", "", "0x12", "12", "+inf", "\uD83D\uDE00x",
      "x\uD83D\uDE00", "\u200b", "abcdef01-2345-6789-abcd-ef0123456789", "T", "2026-12-01T08:40:11Z"};
  private static final long[] SECONDS = {0, -1, 1_796_114_411L, Instant.MIN.getEpochSecond(),
      Instant.MAX.getEpochSecond(), 253_402_300_800L};

  @Test
  void cockroachStyle_example() {
    Key k = KeyCodec.encode(List.of("events_by_time", Instant.parse("2026-12-01T08:40:11.123Z"), "o3832879", 7L));
    assertThat(KeyText.render(k)).isEqualTo("/events_by_time/2026-12-01T08:40:11.123Z/o3832879/7");
    assertThat(KeyText.parseTuple("/events_by_time/2026-12-01T08:40:11.123Z/o3832879/7")).contains(k);
  }

  @Test
  void renderingOfEncodedTuples_matchesTheModel_andReadsBackToTheSameKey() {
    Property.named("tuple rendering").cases(3000).sizes(1, 6).check(g -> {
      List<Object> tuple = randomTuple(g);
      Key key = KeyCodec.encode(tuple);
      String text = KeyText.render(key);
      assertThat(text).isEqualTo(model(tuple));
      assertThat(KeyText.parseTuple(text)).as("read back %s", text).contains(key);
    });
  }

  @Test
  void distinctKeys_renderDistinctly() {
    Property.named("rendering is injective").cases(200).sizes(1, 6).check(g -> {
      Map<String, Key> seen = new HashMap<>();
      for (int i = 0; i < 50; i++) {
        Key k = g.chance(0.5) ? KeyCodec.encode(randomTuple(g)) : randomRaw(g);
        Key before = seen.put(KeyText.render(k), k);
        assertThat(before == null || before.equals(k)).as("%s and %s both render as %s", before, k, KeyText.render(k))
            .isTrue();
      }
    });
  }

  @Test
  void keysThatAreNotTuples_renderRawAsBefore() {
    Property.named("raw keys unchanged").cases(2000).sizes(1, 12).check(g -> {
      Key k = randomRaw(g);
      String text = KeyText.render(k);
      if (tupleDecodes(k)) {
        assertThat(text).startsWith("/").doesNotContain("+\"");
      } else if (k.size() > 1 && tupleDecodes(Key.of(k.toByteArray(), 1, k.size() - 1))) {
        assertThat(text).startsWith("#" + HexFormat.of().toHexDigits((byte) k.byteAt(0)) + "/");
      } else if (cutTuple(k)) {
        assertThat(text).containsPattern("^(#[0-9a-f]{2})?/.*\\+\"");
      } else {
        assertThat(text).isEqualTo(rawModel(k));
      }
      assertThat(KeyText.parseTuple(text).map(Key::toHex).orElse(k.toHex()))
          .as("a rendering read back names the same key").isEqualTo(k.toHex());
    });
  }

  @Test
  void bucketedTuple_showsTheBucketByte_andReadsBack() {
    Key user = KeyCodec.encode(List.of(Instant.parse("2026-12-01T08:40:11.123Z"), "o3832879", 7L));
    Key stored = Key.of(new byte[] {0x4a}).concat(user);
    assertThat(KeyText.render(stored)).isEqualTo("#4a/2026-12-01T08:40:11.123Z/o3832879/7");
    assertThat(KeyText.parseTuple("#4a/2026-12-01T08:40:11.123Z/o3832879/7")).contains(stored);
    assertThat(KeyText.render(Key.utf8("#4a/x"))).isEqualTo("\"#4a/x\"");
  }

  @Test
  void cutTuple_showsWholeElementsThenTheRawRest() {
    Key whole = KeyCodec.encode(List.of("events_by_time", Instant.ofEpochSecond(5)));
    Key cut = whole.prefix(whole.size() - 3);
    assertThat(KeyText.render(cut)).startsWith("/events_by_time+\"\\x05");
    assertThat(KeyText.parseTuple(KeyText.render(cut))).isEmpty();
  }

  @Test
  void rawText_thatLooksLikeAPath_isQuoted() {
    assertThat(KeyText.render(Key.utf8("user42"))).isEqualTo("user42");
    assertThat(KeyText.render(Key.utf8("/events/7"))).isEqualTo("\"/events/7\"");
    assertThat(KeyText.render(Key.fromHex("00ff"))).isEqualTo("\"\\x00\\xff\"");
    assertThat(KeyText.render(RangeEnd.INFINITY)).isEqualTo("+inf");
  }

  // --- the model: each element's spelling, written from the documented format, not from KeyText

  private static String model(List<Object> tuple) {
    return tuple.stream().map(KeyTextPropertyTest::modelElement).collect(Collectors.joining("/", "/", ""));
  }

  private static String modelElement(Object e) {
    if (e instanceof Long l) {
      return Long.toString(l);
    } else if (e instanceof Instant t) {
      return t.toString();
    } else if (e instanceof UUID u) {
      return u.toString();
    } else if (e instanceof Key k) {
      return "0x" + k.toHex();
    }
    String s = (String) e;
    boolean bare = !s.isEmpty() && (Character.isLetter(s.codePointAt(0)) || s.startsWith("_"))
        && !s.matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
        && s.codePoints().allMatch(c -> c > ' ' && !"/+\"\\".contains(Character.toString(c)) && c != 0x200b
            && !Character.isISOControl(c));
    if (bare) {
      return s;
    }
    StringBuilder sb = new StringBuilder("\"");
    s.codePoints().forEach(c -> {
      if (c == '"' || c == '\\') {
        sb.append('\\').appendCodePoint(c);
      } else if (c == '\t' || c == 0 || c == 0x200b) {
        sb.append("\\u{").append(Integer.toHexString(c)).append('}');
      } else {
        sb.appendCodePoint(c);
      }
    });
    return sb.append('"').toString();
  }

  private static String rawModel(Key k) {
    String s = new String(k.toByteArray(), StandardCharsets.UTF_8);
    boolean text = Key.utf8(s).equals(k) && s.codePoints().allMatch(c -> c >= 0x20 && c < 0x7f || c > 0x9f)
        && !s.isEmpty() && !s.startsWith("/") && !s.startsWith("\"") && !s.startsWith("#");
    if (text) {
      return s;
    }
    StringBuilder sb = new StringBuilder("\"");
    for (byte b : k.toByteArray()) {
      int c = b & 0xFF;
      if (c == '"' || c == '\\') {
        sb.append('\\').append((char) c);
      } else if (c >= 0x20 && c < 0x7f) {
        sb.append((char) c);
      } else {
        sb.append("\\x").append(HexFormat.of().toHexDigits((byte) c));
      }
    }
    return sb.append('"').toString();
  }

  private static boolean tupleDecodes(Key k) {
    try {
      return !KeyCodec.decode(k).isEmpty();
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static boolean cutTuple(Key k) {
    for (int from = 0; from <= 1; from++) {
      for (int end = k.size() - 1; end > from; end--) {
        if (tupleDecodes(Key.of(k.toByteArray(), from, end - from))) {
          return true;
        }
      }
    }
    return false;
  }

  private static Key randomRaw(Gen g) {
    switch (g.nextInt(3)) {
      case 0:
        return Key.utf8(WORDS[g.nextInt(WORDS.length)] + g.nextInt(100));
      case 1:
        return Key.of(g.smallAlphabetBytes(1, Math.max(1, g.size()), 7)); // tags, zero, and friends
      default:
        return Key.of(g.bytes(1, Math.max(1, g.size())));
    }
  }

  private static List<Object> randomTuple(Gen g) {
    int n = g.between(1, Math.max(1, g.size()));
    List<Object> t = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      t.add(randomElement(g));
    }
    return t;
  }

  private static Object randomElement(Gen g) {
    switch (g.nextInt(5)) {
      case 0:
        return g.chance(0.5) ? (long) g.between(-10, 10_000_000) : g.nextLong();
      case 1:
        return g.chance(0.3) ? WORDS[g.nextInt(WORDS.length)] + WORDS[g.nextInt(WORDS.length)]
            : WORDS[g.nextInt(WORDS.length)];
      case 2:
        return Key.of(g.bytes(0, 4));
      case 3:
        return g.chance(0.5) ? new UUID(g.nextLong(), g.nextLong()) : new UUID(0xabcdef0123456789L, g.nextLong());
      default:
        long s = g.chance(0.5) ? SECONDS[g.nextInt(SECONDS.length)] : g.between(0, 2_000_000_000);
        return Instant.ofEpochSecond(s, g.chance(0.5) ? 0 : g.between(0, 999_999_999));
    }
  }
}
