package dev.rangekv.meta.controller;

/**
 * An admin call on a range the controller is already working on (one step per range at a time);
 * nothing was done, retry later. Answered as {@code UNAVAILABLE}.
 */
public final class RangeBusyException extends IllegalStateException {
  public RangeBusyException(long rangeId, String holder) {
    super("range " + rangeId + " is busy: " + holder + " in flight; retry later");
  }
}
