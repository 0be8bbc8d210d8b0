package dev.rangekv.sim.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class Hash64Test {
  private static final HexFormat HEX = HexFormat.of();

  @Test
  void blake2b512_matchesRfc7693AppendixA() {
    assertThat(HEX.formatHex(Blake2b.digest("abc".getBytes(StandardCharsets.US_ASCII), 64))).isEqualTo(
        "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
            + "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923");
  }

  /** Expected values from CPython's hashlib.blake2b, including block-boundary lengths. */
  @ParameterizedTest
  @CsvSource({
      "0, e4a6a0577479b2b4, 786a02f742015903",
      "128, f06643fe9c7e18da, fc6c71f688f43ea7",
      "129, e462535bb0c5a299, 55e6e0eb418149a8",
      "300, 8b397aa4c75429a2, a2ff3040eda405b9",
  })
  void blake2b_digestSize8_differsFromTruncated64(int length, String size8, String first8Of64) {
    byte[] data = "a".repeat(length).getBytes(StandardCharsets.US_ASCII);
    assertThat(HEX.formatHex(Blake2b.digest(data, 8))).isEqualTo(size8);
    assertThat(HEX.formatHex(Blake2b.digest(data, 64)).substring(0, 16)).isEqualTo(first8Of64);
    assertThat(Hash64.BLAKE2B_64.hash(data)).isEqualTo(Long.parseUnsignedLong(size8, 16));
  }

  @Test
  void blake2b64_ofSeedStrings_matchesPython() {
    assertThat(Hash64.BLAKE2B_64.hash("abc")).isEqualTo(Long.parseUnsignedLong("d8bb14d833d59559", 16));
    assertThat(Hash64.BLAKE2B_64.hash("user:0")).isEqualTo(Long.parseUnsignedLong("2b6e5f8c3559ee21", 16));
  }

  @Test
  void xxh64_matchesReferenceVectors() {
    assertThat(Hash64.XXH64.hash("")).isEqualTo(0xEF46DB3751D8E999L);
    assertThat(Hash64.XXH64.hash("abc")).isEqualTo(0x44BC2CF5AD770999L);
    // 39 bytes: exercises the 32-byte stripe loop, the 8-byte and 4-byte tails and single bytes.
    assertThat(Hash64.XXH64.hash("Nobody inspects the spammish repetition")).isEqualTo(0xFBCEA83C8A378BF1L);
  }

  @Test
  void md5Prefix_isFirstEightBytesBigEndian() {
    // md5("") = d41d8cd98f00b204e9800998ecf8427e
    assertThat(Hash64.MD5_64.hash("")).isEqualTo(0xD41D8CD98F00B204L);
    // Seed 003: print(shard_for("6000001"), shard_for("6000002")) prints "4 2".
    assertThat(ModN.bucket(Hash64.MD5_64.hash("6000001"), 8)).isEqualTo(4);
    assertThat(ModN.bucket(Hash64.MD5_64.hash("6000002"), 8)).isEqualTo(2);
  }

  @Test
  void slices_hashLikeCopies() {
    byte[] data = "xxuser:42yy".getBytes(StandardCharsets.US_ASCII);
    for (Hash64 h : new Hash64[] {Hash64.XXH64, Hash64.BLAKE2B_64, Hash64.MD5_64}) {
      assertThat(h.hash(data, 2, 7)).isEqualTo(h.hash("user:42"));
    }
  }

  @Test
  void named_findsEachHash_andRejectsUnknownNames() {
    assertThat(Hash64.named("BLAKE2B64")).isSameAs(Hash64.BLAKE2B_64);
    assertThat(Hash64.named("md5")).isSameAs(Hash64.MD5_64);
    assertThat(Hash64.named("xxh64")).isSameAs(Hash64.XXH64);
    assertThatThrownBy(() -> Hash64.named("crc32")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("crc32");
  }
}
