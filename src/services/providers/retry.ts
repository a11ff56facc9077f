import { Duration, Effect, Schedule } from "effect";
import { type ProviderError, RETRYABLE_PROVIDER_ERRORS } from "./Provider.js";

export interface RetryPolicy {
  readonly maxRetries: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 30_000 };

/**
 * Bounded retries for retryable provider failures: exponential backoff with jitter capped at
 * `maxDelayMs`, and never sooner than the server's `retry-after`.
 */
export function providerRetrySchedule(policy: RetryPolicy) {
  const backoff = Schedule.exponential(Duration.millis(Math.max(1, policy.baseDelayMs))).pipe(
    Schedule.jittered,
    Schedule.modifyDelay((_, delay) => Duration.min(delay, Duration.millis(policy.maxDelayMs))),
  );
  // The server's hint is not capped: retrying sooner than it asked only earns another 429.
  const serverHint = Schedule.identity<ProviderError>().pipe(
    Schedule.addDelay((error) => Duration.millis(error.retryAfterMs ?? 0)),
  );
  return Schedule.intersect(backoff, serverHint).pipe(
    Schedule.intersect(Schedule.recurs(policy.maxRetries)),
    Schedule.whileInput((error: ProviderError) => RETRYABLE_PROVIDER_ERRORS.has(error.reason)),
  );
}

/** Schedules by policy object: an immutable description, built once and shared by every run. */
const schedules = new WeakMap<RetryPolicy, ReturnType<typeof providerRetrySchedule>>();

export const withProviderRetry = (policy: RetryPolicy) => {
  const schedule = schedules.get(policy) ?? providerRetrySchedule(policy);
  schedules.set(policy, schedule);
  // The schedule's driver is only started once a call has failed (most calls do not): the retry
  // replays that first failure into the schedule, then calls again — the same delays and count
  // as retrying the call from the start.
  return <A>(effect: Effect.Effect<A, ProviderError>): Effect.Effect<A, ProviderError> =>
    Effect.catchAll(effect, (first) => {
      let replayed = false;
      const attempt = Effect.suspend(() => {
        if (replayed) return effect;
        replayed = true;
        return Effect.fail(first);
      });
      return Effect.retry(attempt, schedule);
    });
};
