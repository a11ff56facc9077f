import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Schedule from "effect/Schedule";
import { ProviderError, RETRYABLE_PROVIDER_ERRORS } from "./Provider.js";

export interface RetryPolicy {
  readonly maxRetries: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /**
   * The longest server `retry-after` the run waits for (default {@link DEFAULT_MAX_RETRY_AFTER_MS}).
   * A server asking for more ends the call at once: it fails (the run: `provider_error`) with a
   * message saying how long the server asked for and what the cap is.
   */
  readonly maxRetryAfterMs?: number;
}

export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterMs: DEFAULT_MAX_RETRY_AFTER_MS,
};

const retryAfterCap = (policy: RetryPolicy) => policy.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;

/** Whether the server asked for a wait longer than the policy accepts. */
const asksTooLong = (policy: RetryPolicy, error: ProviderError) =>
  RETRYABLE_PROVIDER_ERRORS.has(error.reason) &&
  error.retryAfterMs !== undefined &&
  error.retryAfterMs > retryAfterCap(policy);

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** The failure a too-long `retry-after` ends the call with: it says why there was no retry. */
const notWaiting = (policy: RetryPolicy, error: ProviderError) =>
  new ProviderError({
    reason: error.reason,
    message: `${error.message}; not retried: the server asked to retry after ${seconds(error.retryAfterMs ?? 0)}, over the ${seconds(retryAfterCap(policy))} retry-after cap`,
    ...(error.status !== undefined ? { status: error.status } : {}),
    ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
  });

/**
 * Bounded retries for retryable provider failures: exponential backoff with jitter capped at
 * `maxDelayMs`, and never sooner than the server's `retry-after`.
 */
export function providerRetrySchedule(policy: RetryPolicy) {
  const backoff = Schedule.exponential(Duration.millis(Math.max(1, policy.baseDelayMs))).pipe(
    Schedule.jittered,
    Schedule.modifyDelay((_, delay) => Duration.min(delay, Duration.millis(policy.maxDelayMs))),
  );
  // The server's hint is not shortened (retrying sooner than it asked only earns another 429);
  // a hint over `maxRetryAfterMs` stops the retries instead (see `withProviderRetry`).
  const serverHint = Schedule.identity<ProviderError>().pipe(
    Schedule.addDelay((error) => Duration.millis(error.retryAfterMs ?? 0)),
  );
  return Schedule.intersect(backoff, serverHint).pipe(
    Schedule.intersect(Schedule.recurs(policy.maxRetries)),
    Schedule.whileInput(
      (error: ProviderError) => RETRYABLE_PROVIDER_ERRORS.has(error.reason) && !asksTooLong(policy, error),
    ),
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
  const explain = (error: ProviderError) => (asksTooLong(policy, error) ? notWaiting(policy, error) : error);
  return <A>(effect: Effect.Effect<A, ProviderError>): Effect.Effect<A, ProviderError> =>
    Effect.catchAll(effect, (first) => {
      if (asksTooLong(policy, first)) return Effect.fail(notWaiting(policy, first));
      let replayed = false;
      const attempt = Effect.suspend(() => {
        if (replayed) return effect;
        replayed = true;
        return Effect.fail(first);
      });
      return Effect.retry(attempt, schedule).pipe(Effect.mapError(explain));
    });
};
