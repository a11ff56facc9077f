import { Effect, Either } from "effect";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
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
    Effect.runPromise(Effect.either(providerCase.make(server, options).sample(request(overrides))));
  const response = async (options: CaseOptions = {}, overrides = {}) => {
    const result = await sample(options, overrides);
    if (Either.isLeft(result)) throw new Error(`expected a response, got ${(result.left as ProviderError).message}`);
    return result.right;
  };

  it("returns a whole (non-streamed) text answer with finish stop and usage", async () => {
    server.enqueue(providerCase.wire.json({ text: "Item 1 is a teapot.", usage: { input: 12, output: 5 } }));
    const answer = await response({ stream: false });
    expect(answer).toMatchObject({
      text: "Item 1 is a teapot.",
      toolCalls: [],
      finishReason: "stop",
      usage: { inputTokens: 12, outputTokens: 5 },
      anomalies: [],
      streamed: false,
    });
    expect(server.requests[0]!.body.stream).not.toBe(true);
  });

  it("reports streamed text deltas to onTextDelta and marks the response streamed", async () => {
    server.enqueue(providerCase.wire.stream({ text: ["Item 1 ", "is a ", "teapot."] }));
    const deltas: Array<[string, number, string]> = [];
    const answer = await response({ onTextDelta: (runId, step, text) => deltas.push([runId, step, text]) });
    expect(deltas).toEqual([
      ["run-test", 1, "Item 1 "],
      ["run-test", 1, "is a "],
      ["run-test", 1, "teapot."],
    ]);
    expect(answer).toMatchObject({ text: "Item 1 is a teapot.", finishReason: "stop", streamed: true, anomalies: [] });
    expect(server.requests[0]!.body.stream).toBe(true);
  });

  it("does not call a streamed response streamed when nobody received the deltas", async () => {
    server.enqueue(providerCase.wire.stream({ text: ["Hello ", "there."] }));
    const answer = await response();
    expect(answer).toMatchObject({ text: "Hello there.", streamed: false });
  });

  it("records token usage of a streamed answer", async () => {
    server.enqueue(providerCase.wire.stream({ text: "Hi.", usage: { input: 30, output: 4 } }));
    expect((await response()).usage).toEqual({ inputTokens: 30, outputTokens: 4 });
  });

  it("assembles one streamed tool call from argument fragments", async () => {
    server.enqueue(
      providerCase.wire.stream({ calls: [{ id: "call_a", name: "lookup", arguments: ['{"i"', ": 1", "}"] }] }),
    );
    const answer = await response();
    expect(answer).toMatchObject({
      toolCalls: [{ id: "call_a", name: "lookup", arguments: { i: 1 } }],
      malformedToolCalls: [],
      finishReason: "tool_calls",
      anomalies: [],
    });
  });

  it("assembles parallel streamed tool calls in order", async () => {
    server.enqueue(
      providerCase.wire.stream({
        text: "Looking both up.",
        calls: [
          { id: "call_a", name: "lookup", arguments: ['{"i":', "1}"] },
          { id: "call_b", name: "lookup", arguments: ['{"i"', ":2}"] },
        ],
      }),
    );
    const answer = await response();
    expect(answer.text).toBe("Looking both up.");
    expect(answer.toolCalls).toEqual([
      { id: "call_a", name: "lookup", arguments: { i: 1 } },
      { id: "call_b", name: "lookup", arguments: { i: 2 } },
    ]);
    expect(answer.anomalies).toEqual([]);
  });

  it("returns whole (non-streamed) parallel tool calls", async () => {
    server.enqueue(
      providerCase.wire.json({
        calls: [
          { id: "call_a", name: "lookup", arguments: '{"i":1}' },
          { id: "call_b", name: "lookup", arguments: '{"i":2}' },
        ],
      }),
    );
    const answer = await response({ stream: false });
    expect(answer.toolCalls.map((call) => [call.id, call.arguments])).toEqual([
      ["call_a", { i: 1 }],
      ["call_b", { i: 2 }],
    ]);
    expect(answer.finishReason).toBe("tool_calls");
  });

  it("takes an empty argument string as an empty object", async () => {
    server.enqueue(providerCase.wire.stream({ calls: [{ id: "call_a", name: "lookup", arguments: "" }] }));
    expect((await response()).toolCalls).toEqual([{ id: "call_a", name: "lookup", arguments: {} }]);
  });

  it("returns responses that satisfy the domain's ModelResponse schema", async () => {
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
    const answer = await response({ onTextDelta: () => {} });
    expect(ModelResponse.safeParse(answer).success).toBe(true);
  });

  it("sends the API key and the model it was configured with", async () => {
    server.enqueue(providerCase.wire.stream({ text: "ok" }));
    await response();
    const recorded = server.requests[0]!;
    expect(recorded.headers.authorization ?? recorded.headers["x-api-key"]).toMatch(/test-key/);
    expect(recorded.body.model).toMatch(/^fake-/);
  });
});

describe("Chat Completions servers that leave out tool call indexes", () => {
  let server: FakeServer;
  beforeEach(async () => {
    server = await startOpenAIChatServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it("starts a new call for each new id and continues the last call with id-less fragments", async () => {
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
        chunk({ tool_calls: [{ id: "call_b", type: "function", function: { name: "lookup", arguments: '{"i":2}' } }] }),
        chunk({}, "tool_calls"),
        sseFrame("[DONE]"),
      ],
    });
    const chat = CASES.find((providerCase) => providerCase.name === "openai-chat")!;
    const answer = Either.getOrThrow(await Effect.runPromise(Effect.either(chat.make(server).sample(request()))));
    expect(answer.toolCalls).toEqual([
      { id: "call_a", name: "lookup", arguments: { i: 1 } },
      { id: "call_b", name: "lookup", arguments: { i: 2 } },
    ]);
  });
});
