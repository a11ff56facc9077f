import { describe, expect, it } from "@effect/vitest";
import { Effect, Either, Fiber, TestClock } from "effect";
import { ProviderError, type ProviderErrorReason } from "../../../src/services/providers/Provider.js";
import { type RetryPolicy, withProviderRetry } from "../../../src/services/providers/retry.js";

/** An effect that fails with `errors[n]` on attempt n (the last one repeats) or succeeds past them when `thenSucceed`. */
function flakyCall(errors: ReadonlyArray<ProviderError>, thenSucceed = false) {
  let attempts = 0;
  const effect = Effect.suspend(() => {
    const error = errors[Math.min(attempts, errors.length - 1)]!;
    attempts += 1;
    if (thenSucceed && attempts > errors.length) return Effect.succeed("answer");
    return Effect.fail(error);
  });
  return { effect, attempts: () => attempts };
}

const failure = (reason: ProviderErrorReason, retryAfterMs?: number) =>
  new ProviderError({ reason, message: reason, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });

const leftReason = <A>(result: Either.Either<A, ProviderError>) => (Either.isLeft(result) ? result.left.reason : null);

const POLICY: RetryPolicy = { maxRetries: 2, baseDelayMs: 10, maxDelayMs: 30_000 };

describe("withProviderRetry", () => {
  it.effect.each(["rate_limited", "server_error", "timeout", "connection"] as const)(
    "retries %s up to maxRetries and then fails with it",
    (reason) =>
      Effect.gen(function* () {
        const call = flakyCall([failure(reason)]);
        const fiber = yield* Effect.fork(Effect.either(call.effect.pipe(withProviderRetry(POLICY))));
        yield* TestClock.adjust("1 minute");
        const result = yield* Fiber.join(fiber);
        expect(call.attempts()).toBe(1 + POLICY.maxRetries);
        expect(leftReason(result)).toBe(reason);
      }),
  );

  it.effect("succeeds when an attempt within the budget succeeds", () =>
    Effect.gen(function* () {
      const call = flakyCall([failure("server_error"), failure("rate_limited")], true);
      const fiber = yield* Effect.fork(call.effect.pipe(withProviderRetry(POLICY)));
      yield* TestClock.adjust("1 minute");
      expect(yield* Fiber.join(fiber)).toBe("answer");
      expect(call.attempts()).toBe(3);
    }),
  );

  it.effect.each(["bad_request", "auth", "invalid_response", "script_exhausted"] as const)(
    "does not retry %s",
    (reason) =>
      Effect.gen(function* () {
        const call = flakyCall([failure(reason)], true);
        const fiber = yield* Effect.fork(Effect.either(call.effect.pipe(withProviderRetry(POLICY))));
        yield* TestClock.adjust("1 minute");
        const result = yield* Fiber.join(fiber);
        expect(Either.isLeft(result)).toBe(true);
        expect(call.attempts()).toBe(1);
      }),
  );

  it.effect("stops retrying as soon as a non-retryable error follows a retryable one", () =>
    Effect.gen(function* () {
      const call = flakyCall([failure("server_error"), failure("bad_request")], true);
      const fiber = yield* Effect.fork(Effect.either(call.effect.pipe(withProviderRetry(POLICY))));
      yield* TestClock.adjust("1 minute");
      const result = yield* Fiber.join(fiber);
      expect(leftReason(result)).toBe("bad_request");
      expect(call.attempts()).toBe(2);
    }),
  );

  it.effect("never retries when maxRetries is 0", () =>
    Effect.gen(function* () {
      const call = flakyCall([failure("server_error")], true);
      const fiber = yield* Effect.fork(
        Effect.either(call.effect.pipe(withProviderRetry({ ...POLICY, maxRetries: 0 }))),
      );
      yield* TestClock.adjust("1 minute");
      expect(Either.isLeft(yield* Fiber.join(fiber))).toBe(true);
      expect(call.attempts()).toBe(1);
    }),
  );

  it.effect("waits at least the server's retry-after (2000 ms) even though the backoff base is 10 ms", () =>
    Effect.gen(function* () {
      const call = flakyCall([failure("rate_limited", 2_000)], true);
      const fiber = yield* Effect.fork(call.effect.pipe(withProviderRetry(POLICY)));
      yield* TestClock.adjust("0 millis");
      expect(call.attempts()).toBe(1);
      yield* TestClock.adjust("1999 millis");
      expect(call.attempts()).toBe(1);
      yield* TestClock.adjust("1 millis");
      expect(call.attempts()).toBe(2);
      expect(yield* Fiber.join(fiber)).toBe("answer");
    }),
  );

  it.effect("does not retry before the jittered base delay has passed", () =>
    Effect.gen(function* () {
      const call = flakyCall([failure("server_error")], true);
      const fiber = yield* Effect.fork(call.effect.pipe(withProviderRetry({ ...POLICY, baseDelayMs: 1_000 })));
      // Jitter keeps the first delay within 80%–120% of the base.
      yield* TestClock.adjust("799 millis");
      expect(call.attempts()).toBe(1);
      yield* TestClock.adjust("401 millis");
      expect(call.attempts()).toBe(2);
      expect(yield* Fiber.join(fiber)).toBe("answer");
    }),
  );

  it.effect("honours a retry-after longer than maxDelayMs: the server's hint is not capped", () =>
    Effect.gen(function* () {
      const call = flakyCall([failure("rate_limited", 2_000)], true);
      const fiber = yield* Effect.fork(call.effect.pipe(withProviderRetry({ ...POLICY, maxDelayMs: 100 })));
      yield* TestClock.adjust("1999 millis");
      expect(call.attempts()).toBe(1);
      yield* TestClock.adjust("1 millis");
      expect(call.attempts()).toBe(2);
      expect(yield* Fiber.join(fiber)).toBe("answer");
    }),
  );

  it.effect("caps every backoff delay at maxDelayMs", () =>
    Effect.gen(function* () {
      const call = flakyCall([failure("server_error")]);
      const fiber = yield* Effect.fork(
        Effect.either(call.effect.pipe(withProviderRetry({ maxRetries: 3, baseDelayMs: 10_000, maxDelayMs: 50 }))),
      );
      yield* TestClock.adjust("50 millis");
      expect(call.attempts()).toBe(2);
      yield* TestClock.adjust("50 millis");
      expect(call.attempts()).toBe(3);
      yield* TestClock.adjust("50 millis");
      expect(call.attempts()).toBe(4);
      expect(Either.isLeft(yield* Fiber.join(fiber))).toBe(true);
    }),
  );
});
