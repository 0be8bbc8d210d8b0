package dev.rangekv.testkit.linearizability;

import java.util.Optional;

/**
 * The sequential specification of one key: a register holding a value or absence. Pure.
 *
 * <p>An operation whose outcome is unknown is only ever linearized where it takes effect: a put or
 * delete anywhere, a compare-and-set only where its expectation holds. Placing it where it would have
 * no effect (a compare-and-set that finds another value) changes nothing a later operation can see, so
 * leaving it out of the linearization covers that case; a get with an unknown result constrains nothing
 * and is dropped before the search.
 */
final class RegisterStep {
  /** The state after a step, or a refusal: the result is impossible in this state. */
  record Next(boolean ok, Optional<String> state) {
    static final Next REFUSED = new Next(false, Optional.empty());
  }

  private RegisterStep() {}

  static Next step(Optional<String> state, Operation op) {
    Call call = op.call();
    Result result = op.result();
    if (call instanceof Call.Put p) {
      return new Next(true, Optional.of(p.value()));
    }
    if (call instanceof Call.Delete) {
      return new Next(true, Optional.empty());
    }
    if (call instanceof Call.Get) {
      return result instanceof Result.Read r && r.value().equals(state) ? new Next(true, state) : Next.REFUSED;
    }
    Call.Cas cas = (Call.Cas) call;
    if (result instanceof Result.Refused r) {
      return !cas.expected().equals(state) && r.found().equals(state) ? new Next(true, state) : Next.REFUSED;
    }
    // swapped, or unknown and linearized only where it took effect
    return cas.expected().equals(state) ? new Next(true, cas.next()) : Next.REFUSED;
  }
}
