import { describe, expect, it } from "@effect/vitest";
import { Effect, Either, Fiber } from "effect";
import { afterEach, beforeEach } from "vitest";
import type { ProviderError } from "../../../src/services/providers/Provider.js";
import { anthropicStreamError } from "../../support/fakeServers/anthropic.js";
import { CASES, type CaseOptions, request } from "../../support/fakeServers/cases.js";
import { nullBody, wrongShapeStream } from "../../support/fakeServers/malformed.js";
import { failedResponseStream } from "../../support/fakeServers/openaiResponses.js";
import { type FakeServer, type ScriptedReply, sseFrame, statusReply } from "../../support/fakeServers/shared.js";

/** HTTP failures, timeouts and cancellation through each real SDK, as ProviderError values. */

describe.each(CASES)("$name failures", (providerCase) => {
  let server: FakeServer;
  beforeEach(async () => {
    server = await providerCase.start();
  });
  afterEach(async () => {
    await server.close();
  });

  const failure = (reply: ScriptedReply, options: CaseOptions = {}): Effect.Effect<ProviderError> =>
    Effect.gen(function* () {
      server.enqueue(reply);
      const result = yield* Effect.either(providerCase.make(server, options).sample(request()));
      if (Either.isRight(result)) return yield* Effect.dieMessage("expected a ProviderError, got a response");
      return result.left;
    });
  const status = (code: number, headers: Record<string, string> = {}) =>
    statusReply(providerCase.wire.protocol, code, `status ${code}`, headers);

  it.effect("maps 429 to rate_limited with retry-after-ms as the retry hint", () =>
    Effect.gen(function* () {
      const error = yield* failure(status(429, { "retry-after-ms": "50" }));
      expect(error).toMatchObject({ reason: "rate_limited", status: 429, retryAfterMs: 50 });
    }),
  );

  it.effect("reads a retry-after in seconds as the retry hint", () =>
    Effect.gen(function* () {
      const error = yield* failure(status(429, { "retry-after": "2" }));
      expect(error).toMatchObject({ reason: "rate_limited", retryAfterMs: 2000 });
    }),
  );

  it.effect("names the API, the status and the server's message in one line", () =>
    Effect.gen(function* () {
      const error = yield* failure(statusReply(providerCase.wire.protocol, 400, "messages: bad history"));
      expect(error.message).toMatch(/^(OpenAI Chat Completions|OpenAI Responses|Anthropic Messages) returned 400: /);
      expect(error.message).toContain("messages: bad history");
      expect(error.message).not.toContain("\n");
    }),
  );

  it.effect("maps 500 to server_error without a retry hint", () =>
    Effect.gen(function* () {
      const error = yield* failure(status(500));
      expect(error).toMatchObject({ reason: "server_error", status: 500 });
      expect(error.retryAfterMs).toBeUndefined();
    }),
  );

  it.effect("maps 401 to auth", () =>
    Effect.gen(function* () {
      expect(yield* failure(status(401))).toMatchObject({ reason: "auth", status: 401 });
    }),
  );

  it.effect("makes the SDK try once only (retries belong to the runtime)", () =>
    Effect.gen(function* () {
      yield* failure(status(500));
      expect(server.requests).toHaveLength(1);
    }),
  );

  it.effect("fails a stream that stops sending with timeout and closes the connection", () =>
    Effect.gen(function* () {
      const error = yield* failure(providerCase.wire.stream({ text: ["Thinking"] }, "hang"), { timeoutMs: 300 });
      expect(error.reason).toBe("timeout");
      yield* Effect.promise(() => server.waitForAbandoned(1));
    }),
  );

  it.effect("fails a request that never gets an answer with timeout", () =>
    Effect.gen(function* () {
      const error = yield* failure({ kind: "hang" }, { timeoutMs: 300, stream: false });
      expect(error.reason).toBe("timeout");
      yield* Effect.promise(() => server.waitForAbandoned(1));
    }),
  );

  it.effect("aborts the HTTP request when the sample is interrupted mid-stream", () =>
    Effect.gen(function* () {
      server.enqueue(providerCase.wire.stream({ text: ["Thinking"] }, "hang"));
      let firstDelta: () => void = () => {};
      const started = new Promise<void>((resolve) => {
        firstDelta = resolve;
      });
      const provider = providerCase.make(server, { onTextDelta: () => firstDelta() });
      const fiber = yield* Effect.fork(provider.sample(request()));
      yield* Effect.promise(() => started);
      const exit = yield* Fiber.interrupt(fiber);
      expect(exit._tag).toBe("Failure");
      yield* Effect.promise(() => server.waitForAbandoned(1));
      expect(server.abandoned()).toBe(1);
    }),
  );

  it.effect("maps a connection dropped mid-stream to connection", () =>
    Effect.gen(function* () {
      const error = yield* failure(providerCase.wire.stream({ text: ["Half"], finish: null }, "drop"));
      expect(error.reason).toBe("connection");
    }),
  );

  it.effect(
    "maps a whole body of the wrong shape (the SDK throws a TypeError) to invalid_response, not connection",
    () =>
      Effect.gen(function* () {
        const error = yield* failure(nullBody, { stream: false });
        expect(error.reason).toBe("invalid_response");
        expect(error.message).toMatch(/: malformed response: /);
      }),
  );

  it.effect("maps a stream event of the wrong shape (reading it throws a TypeError) to invalid_response", () =>
    Effect.gen(function* () {
      const error = yield* failure(wrongShapeStream(providerCase));
      expect(error.reason).toBe("invalid_response");
    }),
  );
});

describe("failures reported inside a stream", () => {
  /** The failure of one sample against a fresh server of `name`, closed when the test's scope closes. */
  const failureOf = (name: string, reply: ScriptedReply) =>
    Effect.gen(function* () {
      const providerCase = CASES.find((candidate) => candidate.name === name)!;
      const server = yield* Effect.acquireRelease(
        Effect.promise(() => providerCase.start()),
        (started) => Effect.promise(() => started.close()),
      );
      server.enqueue(reply);
      const result = yield* Effect.either(providerCase.make(server).sample(request()));
      return Either.getLeft(result).pipe((option) => (option._tag === "Some" ? option.value : undefined));
    });

  it.scoped("maps a Chat Completions error chunk to a ProviderError by its type", () =>
    Effect.gen(function* () {
      const reply: ScriptedReply = {
        kind: "sse",
        frames: [sseFrame({ error: { message: "busy", type: "server_error", code: null } })],
      };
      expect(yield* failureOf("openai-chat", reply)).toMatchObject({ reason: "server_error" });
    }),
  );

  it.scoped("maps a failed Responses response to a ProviderError by its error code", () =>
    Effect.gen(function* () {
      const error = yield* failureOf("openai-responses", failedResponseStream("rate_limit_exceeded", "slow down"));
      expect(error).toMatchObject({ reason: "rate_limited" });
      expect(error?.message).toContain("slow down");
    }),
  );

  it.scoped("maps an Anthropic overloaded error event to server_error", () =>
    Effect.gen(function* () {
      const error = yield* failureOf("anthropic", anthropicStreamError("overloaded_error", "Overloaded"));
      expect(error).toMatchObject({ reason: "server_error" });
    }),
  );
});
