package dev.rangekv.bench.multiraft;

/**
 * The one operation of the spike's state machine: put {@code value} under {@code key}. Arrays are
 * owned by the operation once built (the writer does not reuse them).
 */
final class PutOp {
  /** What MicroRaft appends when a leader is elected (its new-term entry); applying it does nothing. */
  static final Object NEW_TERM = new Object() {
    @Override
    public String toString() {
      return "new-term";
    }
  };

  private final byte[] key;
  private final byte[] value;

  PutOp(byte[] key, byte[] value) {
    this.key = key;
    this.value = value;
  }

  byte[] key() {
    return key;
  }

  byte[] value() {
    return value;
  }
}
