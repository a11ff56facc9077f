import { describe, expect, it } from "@effect/vitest";
import { Effect, Either } from "effect";
import { afterEach, beforeEach } from "vitest";
import { ModelResponse } from "../../../src/domain/index.js";
import type { ProviderError } from "../../../src/services/providers/Provider.js";
import { CASES, type CaseOptions, request } from "../../support/fakeServers/cases.js";
import { startOpenAIChatServer } from "../../support/fakeServers/openaiChat.js";
import { type FakeServer, sseFrame } from "../../support/fakeServers/shared.js";

/** Text and tool calls through each real SDK against its fake server, streamed and whole. */

describe.each(CASES)("$name provider", (providerCase) => {
  let server: FakeServer;
  beforeEach(async () => {
    server = await providerCase.start();
  });
  afterEach(async () => {
    await server.close();
  });

  const sample = (options: CaseOptions = {}, overrides = {}) =>
    Effect.either(Effect.suspend(() => providerCase.make(server, options).sample(request(overrides))));
  const response = (options: CaseOptions = {}, overrides = {}) =>
    Effect.gen(function* () {
      const result = yield* sample(options, overrides);
      if (Either.isLeft(result)) {
        return yield* Effect.dieMessage(`expected a response, got ${(result.left as ProviderError).message}`);
      }
      return result.right;
    });

  it.effect("returns a whole (non-streamed) text answer with finish stop and usage", () =>
    Effect.gen(function* () {
      server.enqueue(providerCase.wire.json({ text: "Item 1 is a teapot.", usage: { input: 12, output: 5 } }));
      const answer = yield* response({ stream: false });
      expect(answer).toMatchObject({
        text: "Item 1 is a teapot.",
        toolCalls: [],
        finishReason: "stop",
        usage: { inputTokens: 12, outputTokens: 5 },
        anomalies: [],
        streamed: false,
      });
      expect(server.requests[0]!.body.stream).not.toBe(true);
    }),
  );

  it.effect("reports streamed text deltas to onTextDelta and marks the response streamed", () =>
    Effect.gen(function* () {
      server.enqueue(providerCase.wire.stream({ text: ["Item 1 ", "is a ", "teapot."] }));
      const deltas: Array<[string, number, string]> = [];
      const answer = yield* response({ onTextDelta: (runId, step, text) => deltas.push([runId, step, text]) });
      expect(deltas).toEqual([
        ["run-test", 1, "Item 1 "],
        ["run-test", 1, "is a "],
        ["run-test", 1, "teapot."],
      ]);
      expect(answer).toMatchObject({
        text: "Item 1 is a teapot.",
        finishReason: "stop",
        streamed: true,
        anomalies: [],
      });
      expect(server.requests[0]!.body.stream).toBe(true);
    }),
  );

  it.effect("does not call a streamed response streamed when nobody received the deltas", () =>
    Effect.gen(function* () {
      server.enqueue(providerCase.wire.stream({ text: ["Hello ", "there."] }));
      const answer = yield* response();
      expect(answer).toMatchObject({ text: "Hello there.", streamed: false });
    }),
  );

  it.effect("records token usage of a streamed answer", () =>
    Effect.gen(function* () {
      server.enqueue(providerCase.wire.stream({ text: "Hi.", usage: { input: 30, output: 4 } }));
      expect((yield* response()).usage).toEqual({ inputTokens: 30, outputTokens: 4 });
    }),
  );

  it.effect("assembles one streamed tool call from argument fragments", () =>
    Effect.gen(function* () {
      server.enqueue(
        providerCase.wire.stream({ calls: [{ id: "call_a", name: "lookup", arguments: ['{"i"', ": 1", "}"] }] }),
      );
      const answer = yield* response();
      expect(answer).toMatchObject({
        toolCalls: [{ id: "call_a", name: "lookup", arguments: { i: 1 } }],
        malformedToolCalls: [],
        finishReason: "tool_calls",
        anomalies: [],
      });
    }),
  );

  it.effect("assembles parallel streamed tool calls in order", () =>
    Effect.gen(function* () {
      server.enqueue(
        providerCase.wire.stream({
          text: "Looking both up.",
          calls: [
            { id: "call_a", name: "lookup", arguments: ['{"i":', "1}"] },
            { id: "call_b", name: "lookup", arguments: ['{"i"', ":2}"] },
          ],
        }),
      );
      const answer = yield* response();
      expect(answer.text).toBe("Looking both up.");
      expect(answer.toolCalls).toEqual([
        { id: "call_a", name: "lookup", arguments: { i: 1 } },
        { id: "call_b", name: "lookup", arguments: { i: 2 } },
      ]);
      expect(answer.anomalies).toEqual([]);
    }),
  );

  it.effect("returns whole (non-streamed) parallel tool calls", () =>
    Effect.gen(function* () {
      server.enqueue(
        providerCase.wire.json({
          calls: [
            { id: "call_a", name: "lookup", arguments: '{"i":1}' },
            { id: "call_b", name: "lookup", arguments: '{"i":2}' },
          ],
        }),
      );
      const answer = yield* response({ stream: false });
      expect(answer.toolCalls.map((call) => [call.id, call.arguments])).toEqual([
        ["call_a", { i: 1 }],
        ["call_b", { i: 2 }],
      ]);
      expect(answer.finishReason).toBe("tool_calls");
    }),
  );

  it.effect("takes an empty argument string as an empty object", () =>
    Effect.gen(function* () {
      server.enqueue(providerCase.wire.stream({ calls: [{ id: "call_a", name: "lookup", arguments: "" }] }));
      expect((yield* response()).toolCalls).toEqual([{ id: "call_a", name: "lookup", arguments: {} }]);
    }),
  );

  it.effect("returns responses that satisfy the domain's ModelResponse schema", () =>
    Effect.gen(function* () {
      server.enqueue(
        providerCase.wire.stream({
          text: "Calling.",
          calls: [
            { name: "lookup", arguments: '{"i":1}' },
            { id: "call_b", arguments: "{}" },
          ],
          usage: { input: 3, output: 2 },
        }),
      );
      const answer = yield* response({ onTextDelta: () => {} });
      expect(ModelResponse.safeParse(answer).success).toBe(true);
    }),
  );

  it.effect("sends the API key and the model it was configured with", () =>
    Effect.gen(function* () {
      server.enqueue(providerCase.wire.stream({ text: "ok" }));
      yield* response();
      const recorded = server.requests[0]!;
      expect(recorded.headers.authorization ?? recorded.headers["x-api-key"]).toMatch(/test-key/);
      expect(recorded.body.model).toMatch(/^fake-/);
    }),
  );
});

describe("Chat Completions servers that leave out tool call indexes", () => {
  let server: FakeServer;
  beforeEach(async () => {
    server = await startOpenAIChatServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it.effect("starts a new call for each new id and continues the last call with id-less fragments", () =>
    Effect.gen(function* () {
      const chunk = (delta: unknown, finish: string | null = null) =>
        sseFrame({
          id: "c",
          object: "chat.completion.chunk",
          created: 0,
          model: "m",
          choices: [{ index: 0, delta, finish_reason: finish }],
        });
      server.enqueue({
        kind: "sse",
        frames: [
          chunk({ tool_calls: [{ id: "call_a", type: "function", function: { name: "lookup", arguments: '{"i":' } }] }),
          chunk({ tool_calls: [{ function: { arguments: "1}" } }] }),
          chunk({
            tool_calls: [{ id: "call_b", type: "function", function: { name: "lookup", arguments: '{"i":2}' } }],
          }),
          chunk({}, "tool_calls"),
          sseFrame("[DONE]"),
        ],
      });
      const chat = CASES.find((providerCase) => providerCase.name === "openai-chat")!;
      const answer = Either.getOrThrow(yield* Effect.either(chat.make(server).sample(request())));
      expect(answer.toolCalls).toEqual([
        { id: "call_a", name: "lookup", arguments: { i: 1 } },
        { id: "call_b", name: "lookup", arguments: { i: 2 } },
      ]);
    }),
  );
});
