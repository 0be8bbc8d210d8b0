package dev.rangekv.core.cluster;

import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One label condition of a placement rule: {@code +key=value} (required: a replica's node must carry
 * the label with that value) or {@code -key=value} (forbidden: it must not). The zone is the label
 * {@code zone}.
 *
 * @param key label name, lowercase letters, digits, {@code . _ -}
 * @param value label value, non-empty, no {@code ,} {@code =} or whitespace
 * @param required true for {@code +}, false for {@code -}
 */
public record LabelConstraint(String key, String value, boolean required) {
  private static final Pattern KEY = Pattern.compile("[a-z0-9][a-z0-9._-]{0,62}");
  private static final Pattern VALUE = Pattern.compile("[^\\s,=]{1,128}");

  public LabelConstraint {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    if (!KEY.matcher(key).matches()) {
      throw new InvalidRuleException("bad label key '" + key + "': lowercase letters, digits, '.', '_', '-'");
    }
    if (!VALUE.matcher(value).matches()) {
      throw new InvalidRuleException("bad label value '" + value + "' for " + key);
    }
  }

  /** Parses {@code +zone=eu-1} or {@code -disk=hdd}. */
  public static LabelConstraint parse(String text) {
    String t = text.trim();
    if (t.length() < 4 || (t.charAt(0) != '+' && t.charAt(0) != '-') || t.indexOf('=') < 2) {
      throw new InvalidRuleException("bad constraint '" + text + "': expected +key=value or -key=value");
    }
    int eq = t.indexOf('=');
    return new LabelConstraint(t.substring(1, eq), t.substring(eq + 1), t.charAt(0) == '+');
  }

  /** True when a node with {@code labels} satisfies this condition. */
  public boolean matches(Map<String, String> labels) {
    return value.equals(labels.get(key)) == required;
  }

  @Override
  public String toString() {
    return (required ? "+" : "-") + key + "=" + value;
  }
}
