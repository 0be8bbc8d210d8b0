package dev.rangekv.meta.controller;

import dev.rangekv.core.policy.Explanation;
import dev.rangekv.meta.state.MetaGroup;
import dev.rangekv.proto.EventProto;
import dev.rangekv.proto.FigureProto;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.meta.MetaCommand;
import dev.rangekv.proto.meta.ReportDescriptorsRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executes one step on ranges: runs the blocking {@link RangeActions} call on the step executor, then
 * reports the resulting descriptors to the meta range and logs the event, in that order, so the next
 * tick already sees the new map and the split history. A failure is logged and becomes a {@code
 * "failed"} event whose reason names the step and the exception's message (the same failure of the
 * same ranges is recorded once per {@link EventLog#QUIET_MILLIS}), and the returned future fails with
 * it. Thread-safe.
 */
final class StepRunner {
  private static final Logger log = LoggerFactory.getLogger(StepRunner.class);

  private final MetaGroup meta;
  private final EventLog events;
  private final Executor executor;
  private final LongSupplier clock;

  /**
   * What a finished step reports and logs.
   *
   * @param report descriptors to report to the meta range (highest generation wins there)
   * @param eventRangeIds the event's ranges (e.g. both halves of a split)
   * @param detail the event's human summary
   * @param extraFigures figures added after the decision's own (e.g. a split's cause)
   */
  record Done(List<RangeDescriptorProto> report, List<Long> eventRangeIds, String detail,
      List<FigureProto> extraFigures) {
    Done {
      report = List.copyOf(report);
      eventRangeIds = List.copyOf(eventRangeIds);
      extraFigures = List.copyOf(extraFigures);
    }

    static Done of(RangeDescriptorProto d, String detail) {
      return new Done(List.of(d), List.of(d.getRangeId()), detail, List.of());
    }
  }

  StepRunner(MetaGroup meta, EventLog events, Executor executor, LongSupplier clock) {
    this.meta = meta;
    this.events = events;
    this.executor = executor;
    this.clock = clock;
  }

  /**
   * Runs {@code action} for {@code kind} on {@code rangeIds} under {@code lease}; ranges it creates
   * join the lease before they are reported, so no tick acts on them before the operation ends.
   */
  <T> CompletableFuture<T> run(InFlight.Lease lease, String kind, List<Long> rangeIds, Explanation why,
      Supplier<T> action, Function<T, Done> done) {
    return CompletableFuture.supplyAsync(action, executor)
        .thenCompose(result -> {
          Done d = done.apply(result);
          lease.extend(d.report().stream().map(RangeDescriptorProto::getRangeId).toList());
          EventProto.Builder e = EventLog.event(kind, d.eventRangeIds(), why, d.detail(), clock.getAsLong())
              .toBuilder().addAllFigures(d.extraFigures());
          return report(d.report())
              .thenCompose(v -> events.append(List.of(e.build())))
              .thenApply(v -> result);
        })
        .handle((result, err) -> {
          if (err == null) {
            return CompletableFuture.completedFuture(result);
          }
          return this.<T>failed(kind, rangeIds, why, unwrap(err));
        })
        .thenCompose(Function.identity());
  }

  private CompletableFuture<?> report(List<RangeDescriptorProto> descriptors) {
    if (descriptors.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    return meta.propose(MetaCommand.newBuilder().setAtMillis(clock.getAsLong())
        .setReport(ReportDescriptorsRequest.newBuilder().addAllRanges(descriptors)).build());
  }

  private <T> CompletableFuture<T> failed(String kind, List<Long> rangeIds, Explanation why, Throwable cause) {
    String message = cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
    log.warn("controller step failed kind={} rangeIds={} error={}", kind, rangeIds, message);
    log.debug("controller step failure kind={} rangeIds={}", kind, rangeIds, cause);
    long now = clock.getAsLong();
    EventProto failed = EventLog.event("failed", rangeIds, why, kind + " of " + rangeIds + " was wanted because: " + why,
        now).toBuilder().setReason(kind + " failed: " + message).build();
    if (!events.shouldLog(failed, now)) {
      // The same failure again within the quiet period: logged above, already in the event log.
      return CompletableFuture.failedFuture(cause);
    }
    return events.append(List.of(failed)).handle((v, appendErr) -> {
      if (appendErr != null) {
        log.warn("could not log failed step kind={} rangeIds={} error={}", kind, rangeIds,
            unwrap(appendErr).getMessage());
      }
      throw new CompletionException(cause);
    });
  }

  static Throwable unwrap(Throwable t) {
    Throwable c = t;
    while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
      c = c.getCause();
    }
    return c;
  }

  static List<Long> ids(RangeDescriptorProto... ds) {
    List<Long> out = new ArrayList<>();
    for (RangeDescriptorProto d : ds) {
      out.add(d.getRangeId());
    }
    return out;
  }
}
