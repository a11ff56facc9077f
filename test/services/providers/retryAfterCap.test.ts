import { describe, expect, it } from "@effect/vitest";
import { Effect, Either, Fiber, TestClock } from "effect";
import type { ModelResponse } from "../../../src/domain/index.js";
import { type Provider, ProviderError } from "../../../src/services/providers/Provider.js";
import { DEFAULT_RETRY_POLICY, withProviderRetry } from "../../../src/services/providers/retry.js";
import { finish, useRuntimeHarness } from "../../support/runtimeHarness.js";

/**
 * Issue N item 8: a server `retry-after` beyond the policy's `maxRetryAfterMs` (default 60 s) is
 * not waited for: the call fails at once with a message saying why (the run: provider_error).
 */

const harness = useRuntimeHarness("agentloop-retrycap-");

const rateLimited = (retryAfterMs: number) =>
  new ProviderError({ reason: "rate_limited", status: 429, message: "provider returned 429", retryAfterMs });

function flaky(errors: ReadonlyArray<ProviderError>) {
  let attempts = 0;
  const effect = Effect.suspend(() => {
    const error = errors[attempts];
    attempts += 1;
    return error ? Effect.fail(error) : Effect.succeed("answer");
  });
  return { effect, attempts: () => attempts };
}

describe("withProviderRetry: the retry-after cap", () => {
  it("defaults to 60 s", () => {
    expect(DEFAULT_RETRY_POLICY.maxRetryAfterMs).toBe(60_000);
  });

  it.effect("fails at once, saying why, when the server asks for 99999 s", () =>
    Effect.gen(function* () {
      const call = flaky([rateLimited(99_999_000)]);
      const fiber = yield* Effect.fork(
        Effect.either(call.effect.pipe(withProviderRetry({ maxRetries: 3, baseDelayMs: 10, maxDelayMs: 1_000 }))),
      );
      yield* TestClock.adjust("0 millis");
      const result = yield* Fiber.join(fiber);
      expect(call.attempts()).toBe(1);
      expect(Either.isLeft(result)).toBe(true);
      const error = (result as Either.Left<ProviderError, string>).left;
      expect(error.message).toContain("provider returned 429");
      expect(error.message).toMatch(/retry after 99999 s, over the 60 s retry-after cap/);
    }),
  );

  it.effect("stops when a later attempt asks for more than the policy's own cap", () =>
    Effect.gen(function* () {
      const call = flaky([rateLimited(100), rateLimited(5_000)]);
      const fiber = yield* Effect.fork(
        Effect.either(
          call.effect.pipe(
            withProviderRetry({ maxRetries: 3, baseDelayMs: 10, maxDelayMs: 1_000, maxRetryAfterMs: 1_000 }),
          ),
        ),
      );
      yield* TestClock.adjust("1 second");
      const result = yield* Fiber.join(fiber);
      expect(call.attempts()).toBe(2);
      expect(Either.isLeft(result) && result.left.message).toMatch(/over the 1 s retry-after cap/);
    }),
  );

  it.effect("still waits for a retry-after within the cap", () =>
    Effect.gen(function* () {
      const call = flaky([rateLimited(30_000)]);
      const fiber = yield* Effect.fork(
        call.effect.pipe(withProviderRetry({ maxRetries: 3, baseDelayMs: 10, maxDelayMs: 1_000 })),
      );
      yield* TestClock.adjust("29999 millis");
      expect(call.attempts()).toBe(1);
      yield* TestClock.adjust("1 millis");
      expect(yield* Fiber.join(fiber)).toBe("answer");
    }),
  );
});

describe("a run whose provider asks for a 27 h retry-after", () => {
  it("ends failed with provider_error at once instead of waiting", async () => {
    const provider: Provider = {
      id: "limited",
      model: "m",
      apiFamily: "test",
      capabilities: { toolCalling: true, toolChoice: ["auto", "required", "none", "specific"] },
      sample: () => Effect.fail(rateLimited(99_999_000)) as Effect.Effect<ModelResponse, ProviderError>,
    };
    const runtime = await harness.makeRuntime();
    const started = Date.now();
    const { result, events } = await finish(runtime, runtime.startRun({ sessionId: "s1", input: "hi", provider }));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.terminalState).toBe("failed");
    expect(result.terminalReason).toBe("provider_error");
    expect(events.at(-1)).toMatchObject({ type: "terminal", payload: { reason: "provider_error" } });
  });
});
