import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "@effect/vitest";
import { Effect, Either } from "effect";
import OpenAI from "openai";
import { afterEach, beforeEach } from "vitest";
import type { ContextMessage, ToolChoice } from "../../../src/domain/index.js";
import {
  EARLIER_TURNS_LEFT_OUT,
  toAnthropicConversation,
} from "../../../src/services/providers/serializers/anthropic.js";
import { toChatMessages } from "../../../src/services/providers/serializers/openaiChat.js";
import { toResponsesInput } from "../../../src/services/providers/serializers/openaiResponses.js";
import { API_KEY, CASES, type ProviderCase, request } from "../../support/fakeServers/cases.js";
import type { FakeServer } from "../../support/fakeServers/shared.js";
import { lookupTool, useRuntimeHarness } from "../../support/runtimeHarness.js";

/**
 * The serializers, proven by sending through the real SDKs to servers that validate pairing the
 * way the real APIs do: a well-formed history is accepted, a broken one is refused with 400.
 */

const harness = useRuntimeHarness("agentloop-serializers-");

/** A history with parallel calls, an error result, a raw (non-JSON) argument string and a later user turn. */
const HISTORY: ContextMessage[] = [
  { role: "system", content: "You look things up." },
  { role: "user", content: "Look items 1 and 2 up." },
  {
    role: "assistant",
    content: "Looking both up.",
    toolCalls: [
      { id: "call_1", name: "lookup", arguments: { i: 1 } },
      { id: "call_2", name: "lookup", arguments: "{i: 2" },
    ],
  },
  { role: "tool", callId: "call_1", toolName: "lookup", content: '{"value":"teapot"}', isError: false },
  {
    role: "tool",
    callId: "call_2",
    toolName: "lookup",
    content: "error (invalid_arguments): arguments are not valid JSON",
    isError: true,
  },
  { role: "user", content: "And item 3?" },
];

/** What a context trimmed to its budget can look like: the user turn that started it is gone. */
const TRIMMED: ContextMessage[] = HISTORY.filter((message) => message.role !== "user");

const sampleWith = (providerCase: ProviderCase, server: FakeServer, messages: ContextMessage[], extra = {}) =>
  Effect.suspend(() => {
    server.enqueue(providerCase.wire.json({ text: "Noted." }));
    const provider = providerCase.make(server, { stream: false });
    return Effect.either(provider.sample(request({ messages, ...extra })));
  });

describe.each(CASES)("$name serializer against the validating server", (providerCase) => {
  let server: FakeServer;
  beforeEach(async () => {
    server = await providerCase.start();
  });
  afterEach(async () => {
    await server.close();
  });

  it.effect("sends a history with calls, an error result and a raw-argument call that the server accepts", () =>
    Effect.gen(function* () {
      const result = yield* sampleWith(providerCase, server, HISTORY);
      expect(server.requests[0]!.rejected).toBeUndefined();
      expect(Either.isRight(result)).toBe(true);
    }),
  );

  it.effect("answers a call without a recorded result with a synthetic error result", () =>
    Effect.gen(function* () {
      const dangling = HISTORY.filter((message) => !(message.role === "tool" && message.callId === "call_2"));
      const result = yield* sampleWith(providerCase, server, dangling);
      expect(server.requests[0]!.rejected).toBeUndefined();
      expect(Either.isRight(result)).toBe(true);
      expect(JSON.stringify(server.requests[0]!.body)).toContain("no result was recorded for this call");
    }),
  );

  it.effect("sends a result whose call is not in the history as user text", () =>
    Effect.gen(function* () {
      const orphan: ContextMessage[] = [
        { role: "user", content: "Hi" },
        { role: "tool", callId: "call_9", toolName: "lookup", content: "stray", isError: false },
      ];
      const result = yield* sampleWith(providerCase, server, orphan);
      expect(server.requests[0]!.rejected).toBeUndefined();
      expect(Either.isRight(result)).toBe(true);
      expect(JSON.stringify(server.requests[0]!.body)).toContain("whose call is not in the history");
    }),
  );

  it.effect.each<["auto" | "required" | "none" | "specific", ToolChoice]>([
    ["auto", { mode: "auto" }],
    ["required", { mode: "required" }],
    ["none", { mode: "none" }],
    ["specific", { mode: "specific", toolName: "lookup" }],
  ])("maps tool choice %s onto the API's tool_choice", ([mode, toolChoice]) =>
    Effect.gen(function* () {
      yield* sampleWith(providerCase, server, [{ role: "user", content: "Hi" }], { toolChoice });
      const expected = {
        "openai-chat": {
          auto: "auto",
          required: "required",
          none: "none",
          specific: { type: "function", function: { name: "lookup" } },
        },
        "openai-responses": {
          auto: "auto",
          required: "required",
          none: "none",
          specific: { type: "function", name: "lookup" },
        },
        anthropic: {
          auto: { type: "auto" },
          required: { type: "any" },
          none: { type: "none" },
          specific: { type: "tool", name: "lookup" },
        },
      }[providerCase.name][mode];
      expect(server.requests[0]!.body.tool_choice).toEqual(expected);
      expect(server.requests[0]!.rejected).toBeUndefined();
    }),
  );

  it.effect("sends the tool's JSON Schema without the $schema key", () =>
    Effect.gen(function* () {
      yield* sampleWith(providerCase, server, [{ role: "user", content: "Hi" }]);
      const body = server.requests[0]!.body;
      const schema = body.tools[0].function?.parameters ?? body.tools[0].parameters ?? body.tools[0].input_schema;
      expect(schema).toEqual({ type: "object", properties: { i: { type: "number" } }, required: ["i"] });
    }),
  );

  it.effect("sends neither tools nor tool_choice when the request offers no tools", () =>
    Effect.gen(function* () {
      yield* sampleWith(providerCase, server, [{ role: "user", content: "Hi" }], {
        tools: [],
        toolChoice: { mode: "none" },
      });
      expect(server.requests[0]!.body.tools).toBeUndefined();
      expect(server.requests[0]!.body.tool_choice).toBeUndefined();
      expect(server.requests[0]!.rejected).toBeUndefined();
    }),
  );

  it("offers no tools to a provider declared without tool calling", async () => {
    server.enqueue(providerCase.wire.stream({ text: "I cannot look things up." }));
    const runtime = await harness.makeRuntime({
      provider: providerCase.make(server, { capabilities: { toolCalling: false } }),
      tools: [lookupTool()],
    });
    await runtime.startRun({ sessionId: "s", input: "Look item 1 up." }).result;
    expect(providerCase.offeredTools(server.requests[0]!.body)).toEqual([]);
    expect(server.requests[0]!.body.tool_choice).toBeUndefined();
  });
});

describe("the validating servers refuse broken histories with 400", () => {
  let server: FakeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const start = async (name: ProviderCase["name"]) => {
    server = await CASES.find((providerCase) => providerCase.name === name)!.start();
    return server;
  };
  const openai = (origin: string) => new OpenAI({ apiKey: API_KEY, baseURL: `${origin}/v1`, maxRetries: 0 });
  const anthropic = (origin: string) => new Anthropic({ apiKey: API_KEY, baseURL: origin, maxRetries: 0 });
  const call = { id: "call_1", type: "function" as const, function: { name: "lookup", arguments: "{}" } };

  it("Chat Completions: an assistant tool call without its tool message", async () => {
    const { origin } = await start("openai-chat");
    const sent = openai(origin).chat.completions.create({
      model: "m",
      messages: [
        { role: "user", content: "Hi" },
        { role: "assistant", content: null, tool_calls: [call] },
        { role: "user", content: "Well?" },
      ],
    });
    await expect(sent).rejects.toMatchObject({ status: 400, message: expect.stringContaining("call_1") });
  });

  it("Chat Completions: a tool message without a preceding call", async () => {
    const { origin } = await start("openai-chat");
    const sent = openai(origin).chat.completions.create({
      model: "m",
      messages: [
        { role: "user", content: "Hi" },
        { role: "tool", tool_call_id: "call_1", content: "stray" },
      ],
    });
    await expect(sent).rejects.toMatchObject({ status: 400 });
  });

  it("Responses: a function_call_output without its function_call", async () => {
    const { origin } = await start("openai-responses");
    const sent = openai(origin).responses.create({
      model: "m",
      input: [
        { type: "message", role: "user", content: "Hi" },
        { type: "function_call_output", call_id: "call_1", output: "stray" },
      ],
    });
    await expect(sent).rejects.toMatchObject({ status: 400, message: expect.stringContaining("No tool call found") });
  });

  it("Responses: a function_call without its output", async () => {
    const { origin } = await start("openai-responses");
    const sent = openai(origin).responses.create({
      model: "m",
      input: [
        { type: "message", role: "user", content: "Hi" },
        { type: "function_call", call_id: "call_1", name: "lookup", arguments: "{}" },
      ],
    });
    await expect(sent).rejects.toMatchObject({ status: 400, message: expect.stringContaining("No tool output") });
  });

  const anthropicTools = [{ name: "lookup", input_schema: { type: "object" as const } }];

  it("Anthropic: a tool_use without a tool_result in the next user turn", async () => {
    const { origin } = await start("anthropic");
    const sent = anthropic(origin).messages.create({
      model: "m",
      max_tokens: 100,
      tools: anthropicTools,
      messages: [
        { role: "user", content: "Hi" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "lookup", input: {} }] },
        { role: "user", content: "Well?" },
      ],
    });
    await expect(sent).rejects.toMatchObject({ status: 400, message: expect.stringContaining("toolu_1") });
  });

  it("Anthropic: a tool_result without a tool_use in the previous turn", async () => {
    const { origin } = await start("anthropic");
    const sent = anthropic(origin).messages.create({
      model: "m",
      max_tokens: 100,
      tools: anthropicTools,
      messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "stray" }] }],
    });
    await expect(sent).rejects.toMatchObject({ status: 400, message: expect.stringContaining("unexpected") });
  });

  it("Anthropic: a tool_use id with characters the API refuses", async () => {
    const { origin } = await start("anthropic");
    const sent = anthropic(origin).messages.create({
      model: "m",
      max_tokens: 100,
      tools: anthropicTools,
      messages: [
        { role: "user", content: "Hi" },
        { role: "assistant", content: [{ type: "tool_use", id: "call_1~2", name: "lookup", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1~2", content: "ok" }] },
      ],
    });
    await expect(sent).rejects.toMatchObject({ status: 400, message: expect.stringContaining("pattern") });
  });

  it("Anthropic: tool blocks in a request that defines no tools", async () => {
    const { origin } = await start("anthropic");
    const sent = anthropic(origin).messages.create({
      model: "m",
      max_tokens: 100,
      messages: [
        { role: "user", content: "Hi" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "lookup", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }] },
      ],
    });
    await expect(sent).rejects.toMatchObject({ status: 400, message: expect.stringContaining("must define tools") });
  });

  it.effect("the provider reports a refused request as bad_request", () =>
    Effect.gen(function* () {
      const chat = CASES.find((providerCase) => providerCase.name === "openai-chat")!;
      const provider = chat.make(yield* Effect.promise(() => start("openai-chat")), { stream: false });
      // A tool choice naming a tool the request does not offer is refused like the real API does.
      const result = yield* Effect.either(
        provider.sample(request({ toolChoice: { mode: "specific", toolName: "missing" } })),
      );
      expect(Either.getLeft(result).pipe((left) => (left._tag === "Some" ? left.value.reason : null))).toBe(
        "bad_request",
      );
    }),
  );
});

describe("wire shapes", () => {
  it("Chat: JSON-stringifies arguments, sends a raw argument string as-is and one tool message per call", () => {
    const wire = toChatMessages(HISTORY);
    expect(wire.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool", "tool", "user"]);
    expect(wire[2]).toMatchObject({
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "lookup", arguments: '{"i":1}' } },
        { id: "call_2", type: "function", function: { name: "lookup", arguments: "{i: 2" } },
      ],
    });
    expect(wire.slice(3, 5).map((message) => (message as { tool_call_id: string }).tool_call_id)).toEqual([
      "call_1",
      "call_2",
    ]);
  });

  it("Responses: function_call items followed by function_call_output items with the same call_id", () => {
    const items = toResponsesInput(HISTORY) as unknown as Array<Record<string, unknown>>;
    expect(items.map((item) => item.type)).toEqual([
      "message",
      "message",
      "message",
      "function_call",
      "function_call",
      "function_call_output",
      "function_call_output",
      "message",
    ]);
    expect(items.slice(3, 7).map((item) => item.call_id)).toEqual(["call_1", "call_2", "call_1", "call_2"]);
  });

  it("Anthropic: system on top, tool_use blocks, then every tool_result (is_error for failures) leading the next user turn", () => {
    const { system, messages } = toAnthropicConversation(HISTORY);
    expect(system).toBe("You look things up.");
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(messages[1]!.content).toEqual([
      { type: "text", text: "Looking both up." },
      { type: "tool_use", id: "call_1", name: "lookup", input: { i: 1 } },
      { type: "tool_use", id: "call_2", name: "lookup", input: { invalid_arguments: "{i: 2" } },
    ]);
    expect(messages[2]!.content).toEqual([
      { type: "tool_result", tool_use_id: "call_1", content: '{"value":"teapot"}' },
      {
        type: "tool_result",
        tool_use_id: "call_2",
        content: "error (invalid_arguments): arguments are not valid JSON",
        is_error: true,
      },
      { type: "text", text: "And item 3?" },
    ]);
  });

  it("Anthropic: rewrites call ids the API refuses, the same way for the call and its result", () => {
    const { messages } = toAnthropicConversation([
      { role: "user", content: "Hi" },
      { role: "assistant", content: "", toolCalls: [{ id: "call_1~2", name: "lookup", arguments: {} }] },
      { role: "tool", callId: "call_1~2", toolName: "lookup", content: "ok", isError: false },
    ]);
    const use = (messages[1]!.content as Array<{ id?: string }>)[0]!;
    const result = (messages[2]!.content as Array<{ tool_use_id?: string }>)[0]!;
    expect(use.id).toBe("call_1_2");
    expect(result.tool_use_id).toBe("call_1_2");
  });

  it("Anthropic: opens with a user turn that says the earlier turns are left out when the context opens with the assistant", () => {
    for (const toolsOffered of [true, false]) {
      const { system, messages } = toAnthropicConversation(TRIMMED, { toolsOffered });
      expect(system).toBe("You look things up.");
      expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
      expect(messages[0]!.content).toEqual([{ type: "text", text: EARLIER_TURNS_LEFT_OUT }]);
    }
  });

  it("Anthropic: adds no opening turn to a context that opens with the user", () => {
    const { messages } = toAnthropicConversation(HISTORY);
    expect(JSON.stringify(messages)).not.toContain(EARLIER_TURNS_LEFT_OUT);
  });

  it("Anthropic: tells a tool history as text when the request offers no tools", () => {
    const { messages } = toAnthropicConversation(HISTORY, { toolsOffered: false });
    const blocks = messages.flatMap((message) => message.content as Array<{ type: string }>);
    expect(blocks.every((block) => block.type === "text")).toBe(true);
  });
});

describe("Anthropic ids and tool-less histories against the validating server", () => {
  const anthropicCase = CASES.find((providerCase) => providerCase.name === "anthropic")!;
  let server: FakeServer;
  beforeEach(async () => {
    server = await anthropicCase.start();
  });
  afterEach(async () => {
    await server.close();
  });

  it.effect("is accepted with a call id the planner made unique (call_1~2)", () =>
    Effect.gen(function* () {
      const result = yield* sampleWith(anthropicCase, server, [
        { role: "user", content: "Hi" },
        { role: "assistant", content: "", toolCalls: [{ id: "call_1~2", name: "lookup", arguments: {} }] },
        { role: "tool", callId: "call_1~2", toolName: "lookup", content: "ok", isError: false },
      ]);
      expect(server.requests[0]!.rejected).toBeUndefined();
      expect(Either.isRight(result)).toBe(true);
    }),
  );

  it.effect("is accepted with a tool history when no tools are offered", () =>
    Effect.gen(function* () {
      const result = yield* sampleWith(anthropicCase, server, HISTORY, { tools: [], toolChoice: { mode: "none" } });
      expect(server.requests[0]!.rejected).toBeUndefined();
      expect(Either.isRight(result)).toBe(true);
    }),
  );

  it.effect.each([
    { tools: "offered", request: {} },
    { tools: "not offered", request: { tools: [], toolChoice: { mode: "none" } as const } },
  ])(
    "is accepted when the context opens with the assistant (its user turn trimmed away), tools $tools",
    ({ request }) =>
      Effect.gen(function* () {
        const result = yield* sampleWith(anthropicCase, server, TRIMMED, request);
        expect(server.requests[0]!.rejected).toBeUndefined();
        expect(Either.isRight(result)).toBe(true);
      }),
  );
});
