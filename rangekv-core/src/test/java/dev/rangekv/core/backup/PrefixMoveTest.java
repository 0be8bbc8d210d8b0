package dev.rangekv.core.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.testkit.Property;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PrefixMoveTest {
  private static Key k(String s) {
    return Key.utf8(s);
  }

  @Test
  void aPrefixSpan_mapsToTheOtherPrefixSpan() {
    PrefixMove move = new PrefixMove(k("users/"), k("copy/"));
    assertThat(move.apply(KeySpan.prefix(k("users/")))).isEqualTo(KeySpan.prefix(k("copy/")));
    assertThat(move.apply(new KeySpan(k("users/b"), RangeEnd.at(k("users/m")))))
        .isEqualTo(new KeySpan(k("copy/b"), RangeEnd.at(k("copy/m"))));
    assertThat(move.apply(k("users/42"))).isEqualTo(k("copy/42"));
  }

  @Test
  void keysOrSpansOutsideThePrefix_areRefused() {
    PrefixMove move = new PrefixMove(k("users/"), k("copy/"));
    assertThatThrownBy(() -> move.apply(k("orders/1"))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> move.apply(KeySpan.ALL)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void restoreTargets_areClippedToTheBackupAndTheRequest() {
    KeySpan range = new KeySpan(k("a"), RangeEnd.at(k("m")));
    KeySpan backup = KeySpan.prefix(k("c"));
    assertThat(RestoreTarget.of(range, backup, KeySpan.ALL, PrefixMove.NONE))
        .contains(new RestoreTarget(backup, backup));
    assertThat(RestoreTarget.of(range, backup, KeySpan.prefix(k("d")), PrefixMove.NONE)).isEqualTo(Optional.empty());
    assertThat(RestoreTarget.of(range, backup, KeySpan.ALL, new PrefixMove(k("c"), k("x"))).orElseThrow().target())
        .isEqualTo(KeySpan.prefix(k("x")));
  }

  @Test
  void theMove_keepsKeyOrderAndSpanMembership() {
    Property.named("prefix-move").cases(1000).sizes(1, 6).check(g -> {
      Key from = Key.of(g.smallAlphabetBytes(0, 2, 3));
      Key to = Key.of(g.smallAlphabetBytes(0, 2, 3));
      PrefixMove move = new PrefixMove(from, to);
      Key a = from.concat(Key.of(g.smallAlphabetBytes(0, 3, 3)));
      Key b = from.concat(Key.of(g.smallAlphabetBytes(0, 3, 3)));
      assertThat(Integer.signum(move.apply(a).compareTo(move.apply(b)))).isEqualTo(Integer.signum(a.compareTo(b)));
      if (a.compareTo(b) < 0) {
        KeySpan s = new KeySpan(a, RangeEnd.at(b));
        Key c = from.concat(Key.of(g.smallAlphabetBytes(0, 3, 3)));
        assertThat(move.apply(s).contains(move.apply(c))).isEqualTo(s.contains(c));
      }
    });
  }
}
