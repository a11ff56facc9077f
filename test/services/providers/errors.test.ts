import { Effect, Either, Fiber } from "effect";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
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

  const failure = async (reply: ScriptedReply, options: CaseOptions = {}): Promise<ProviderError> => {
    server.enqueue(reply);
    const result = await Effect.runPromise(Effect.either(providerCase.make(server, options).sample(request())));
    if (Either.isRight(result)) throw new Error("expected a ProviderError, got a response");
    return result.left;
  };
  const status = (code: number, headers: Record<string, string> = {}) =>
    statusReply(providerCase.wire.protocol, code, `status ${code}`, headers);

  it("maps 429 to rate_limited with retry-after-ms as the retry hint", async () => {
    const error = await failure(status(429, { "retry-after-ms": "50" }));
    expect(error).toMatchObject({ reason: "rate_limited", status: 429, retryAfterMs: 50 });
  });

  it("reads a retry-after in seconds as the retry hint", async () => {
    const error = await failure(status(429, { "retry-after": "2" }));
    expect(error).toMatchObject({ reason: "rate_limited", retryAfterMs: 2000 });
  });

  it("names the API, the status and the server's message in one line", async () => {
    const error = await failure(statusReply(providerCase.wire.protocol, 400, "messages: bad history"));
    expect(error.message).toMatch(/^(OpenAI Chat Completions|OpenAI Responses|Anthropic Messages) returned 400: /);
    expect(error.message).toContain("messages: bad history");
    expect(error.message).not.toContain("\n");
  });

  it("maps 500 to server_error without a retry hint", async () => {
    const error = await failure(status(500));
    expect(error).toMatchObject({ reason: "server_error", status: 500 });
    expect(error.retryAfterMs).toBeUndefined();
  });

  it("maps 401 to auth", async () => {
    expect(await failure(status(401))).toMatchObject({ reason: "auth", status: 401 });
  });

  it("makes the SDK try once only (retries belong to the runtime)", async () => {
    await failure(status(500));
    expect(server.requests).toHaveLength(1);
  });

  it("fails a stream that stops sending with timeout and closes the connection", async () => {
    const error = await failure(providerCase.wire.stream({ text: ["Thinking"] }, "hang"), { timeoutMs: 300 });
    expect(error.reason).toBe("timeout");
    await server.waitForAbandoned(1);
  });

  it("fails a request that never gets an answer with timeout", async () => {
    const error = await failure({ kind: "hang" }, { timeoutMs: 300, stream: false });
    expect(error.reason).toBe("timeout");
    await server.waitForAbandoned(1);
  });

  it("aborts the HTTP request when the sample is interrupted mid-stream", async () => {
    server.enqueue(providerCase.wire.stream({ text: ["Thinking"] }, "hang"));
    let firstDelta: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      firstDelta = resolve;
    });
    const provider = providerCase.make(server, { onTextDelta: () => firstDelta() });
    const exit = await Effect.runPromise(
      Effect.gen(function* () {
        const fiber = yield* Effect.fork(provider.sample(request()));
        yield* Effect.promise(() => started);
        return yield* Fiber.interrupt(fiber);
      }),
    );
    expect(exit._tag).toBe("Failure");
    await server.waitForAbandoned(1);
    expect(server.abandoned()).toBe(1);
  });

  it("maps a connection dropped mid-stream to connection", async () => {
    const error = await failure(providerCase.wire.stream({ text: ["Half"], finish: null }, "drop"));
    expect(error.reason).toBe("connection");
  });

  it("maps a whole body of the wrong shape (the SDK throws a TypeError) to invalid_response, not connection", async () => {
    const error = await failure(nullBody, { stream: false });
    expect(error.reason).toBe("invalid_response");
    expect(error.message).toMatch(/: malformed response: /);
  });

  it("maps a stream event of the wrong shape (reading it throws a TypeError) to invalid_response", async () => {
    const error = await failure(wrongShapeStream(providerCase));
    expect(error.reason).toBe("invalid_response");
  });
});

describe("failures reported inside a stream", () => {
  let server: FakeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const failureOf = async (name: string, reply: ScriptedReply) => {
    const providerCase = CASES.find((candidate) => candidate.name === name)!;
    server = await providerCase.start();
    server.enqueue(reply);
    const result = await Effect.runPromise(Effect.either(providerCase.make(server).sample(request())));
    return Either.getLeft(result).pipe((option) => (option._tag === "Some" ? option.value : undefined));
  };

  it("maps a Chat Completions error chunk to a ProviderError by its type", async () => {
    const reply: ScriptedReply = {
      kind: "sse",
      frames: [sseFrame({ error: { message: "busy", type: "server_error", code: null } })],
    };
    expect(await failureOf("openai-chat", reply)).toMatchObject({ reason: "server_error" });
  });

  it("maps a failed Responses response to a ProviderError by its error code", async () => {
    const error = await failureOf("openai-responses", failedResponseStream("rate_limit_exceeded", "slow down"));
    expect(error).toMatchObject({ reason: "rate_limited" });
    expect(error?.message).toContain("slow down");
  });

  it("maps an Anthropic overloaded error event to server_error", async () => {
    const error = await failureOf("anthropic", anthropicStreamError("overloaded_error", "Overloaded"));
    expect(error).toMatchObject({ reason: "server_error" });
  });
});
