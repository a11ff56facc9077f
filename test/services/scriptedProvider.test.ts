import { describe, expect, it } from "@effect/vitest";
import { Effect, Either, Fiber, TestClock } from "effect";
import type { CassetteModelStep } from "../../src/domain/index.js";
import type { ProviderRequest } from "../../src/services/providers/Provider.js";
import { scriptedProvider, scriptedResponse } from "../../src/services/providers/scripted.js";

const request = (step: number): ProviderRequest => ({
  runId: "run-1",
  step,
  messages: [{ role: "user", content: "hi" }],
  tools: [],
  toolChoice: { mode: "auto" },
});

describe("scriptedProvider", () => {
  it.effect("returns the script's steps in order, one per call", () =>
    Effect.gen(function* () {
      const provider = scriptedProvider([{ text: "first" }, { text: "second" }, { text: "third" }]);
      const texts: string[] = [];
      for (const step of [1, 2, 3]) texts.push((yield* provider.sample(request(step))).text);
      expect(texts).toEqual(["first", "second", "third"]);
    }),
  );

  it.effect("answers a text-only step as text with finish stop and no tool calls", () =>
    Effect.gen(function* () {
      const response = yield* scriptedProvider([{ text: "The answer." }]).sample(request(1));
      expect(response).toEqual({
        text: "The answer.",
        toolCalls: [],
        malformedToolCalls: [],
        anomalies: [],
        streamed: false,
        finishReason: "stop",
      });
    }),
  );

  it.effect("answers a tool-call step with its calls, commentary text and finish tool_calls", () =>
    Effect.gen(function* () {
      const response = yield* scriptedProvider([
        { text: "Checking.", toolCalls: [{ id: "c1", name: "lookup", arguments: { i: 1 } }] },
      ]).sample(request(1));
      expect(response).toEqual({
        text: "Checking.",
        toolCalls: [{ id: "c1", name: "lookup", arguments: { i: 1 } }],
        malformedToolCalls: [],
        anomalies: [],
        streamed: false,
        finishReason: "tool_calls",
      });
    }),
  );

  it.effect("keeps the finish reason the script states", () =>
    Effect.gen(function* () {
      const response = yield* scriptedProvider([{ text: "cut", finishReason: "length" }]).sample(request(1));
      expect(response.finishReason).toBe("length");
    }),
  );

  it("keeps invalid JSON argument strings raw", () => {
    const response = scriptedResponse({ toolCalls: [{ id: "c1", name: "lookup", arguments: '{"i": 1' }] });
    expect(response.toolCalls[0]!.arguments).toBe('{"i": 1');
  });

  it("parses valid JSON argument strings", () => {
    const response = scriptedResponse({
      toolCalls: [{ id: "c1", name: "lookup", arguments: '{"i": 1, "tags": ["a"]}' }],
    });
    expect(response.toolCalls[0]!.arguments).toEqual({ i: 1, tags: ["a"] });
  });

  it.effect.each([
    [429, "rate_limited"],
    [500, "server_error"],
    [503, "server_error"],
    [400, "bad_request"],
    [401, "auth"],
    [408, "timeout"],
  ] as const)("fails an error step with status %i as %s", ([status, reason]) =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(scriptedProvider([{ error: { status, message: "nope" } }]).sample(request(1)));
      expect(error).toMatchObject({ _tag: "ProviderError", reason, status, message: "nope" });
    }),
  );

  it.effect("fails with script_exhausted when asked for a step past the end", () =>
    Effect.gen(function* () {
      const provider = scriptedProvider([{ text: "only" }]);
      yield* provider.sample(request(1));
      const error = yield* Effect.flip(provider.sample(request(2)));
      expect(error.reason).toBe("script_exhausted");
      expect(error.message).toContain("1 step(s)");
    }),
  );

  it.effect("counts error steps as consumed, so a retry gets the next step", () =>
    Effect.gen(function* () {
      const provider = scriptedProvider([{ error: { status: 500 } }, { text: "recovered" }]);
      const first = yield* Effect.either(provider.sample(request(1)));
      expect(Either.isLeft(first)).toBe(true);
      expect((yield* provider.sample(request(1))).text).toBe("recovered");
    }),
  );

  it.effect("waits delayMs of (test) clock time before answering", () =>
    Effect.gen(function* () {
      const steps: CassetteModelStep[] = [{ text: "late", delayMs: 1_000 }];
      const fiber = yield* Effect.fork(scriptedProvider(steps).sample(request(1)));
      yield* TestClock.adjust("999 millis");
      expect(fiber.unsafePoll()).toBeNull();
      yield* TestClock.adjust("1 millis");
      const response = yield* Fiber.join(fiber);
      expect(response.text).toBe("late");
    }),
  );

  it.effect("applies delayMs before an error step fails", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.fork(
        Effect.either(scriptedProvider([{ error: { status: 500 }, delayMs: 200 }]).sample(request(1))),
      );
      yield* TestClock.adjust("199 millis");
      expect(fiber.unsafePoll()).toBeNull();
      yield* TestClock.adjust("1 millis");
      expect(Either.isLeft(yield* Fiber.join(fiber))).toBe(true);
    }),
  );

  it("exposes tool calling by default and honours declared capabilities", () => {
    expect(scriptedProvider([]).capabilities.toolCalling).toBe(true);
    expect(scriptedProvider([], { capabilities: { toolCalling: false } }).capabilities.toolCalling).toBe(false);
  });
});
