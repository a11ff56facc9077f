import { describe, expect, it } from "@effect/vitest";
import { Effect, Either } from "effect";
import { afterEach, beforeEach } from "vitest";
import type { ProviderError } from "../../../src/services/providers/Provider.js";
import { DEFAULT_DEADLINE_MS } from "../../../src/services/providers/transport.js";
import { CASES, type CaseOptions, type ProviderCase, request } from "../../support/fakeServers/cases.js";
import { type FakeServer, type ScriptedReply, sseFrame } from "../../support/fakeServers/shared.js";

/**
 * Issue N item 9: keep-alive chunks are not progress (they do not re-arm the idle timer), and
 * every provider call has an overall deadline, so a trickling stream always ends.
 */

/** Per wire protocol: a chunk that carries nothing, and one that carries a bit of text. */
const FRAMES: Record<ProviderCase["name"], { keepAlive: string; content: string }> = {
  "openai-chat": {
    keepAlive: sseFrame({
      id: "chatcmpl-fake",
      object: "chat.completion.chunk",
      created: 0,
      model: "fake-chat-model",
      choices: [{ index: 0, delta: {}, finish_reason: null }],
    }),
    content: sseFrame({
      id: "chatcmpl-fake",
      object: "chat.completion.chunk",
      created: 0,
      model: "fake-chat-model",
      choices: [{ index: 0, delta: { content: "." }, finish_reason: null }],
    }),
  },
  "openai-responses": {
    keepAlive: sseFrame(
      {
        type: "response.in_progress",
        sequence_number: 1,
        response: { id: "resp_fake", status: "in_progress", output: [] },
      },
      "response.in_progress",
    ),
    content: sseFrame(
      {
        type: "response.output_text.delta",
        sequence_number: 1,
        item_id: "msg_fake",
        output_index: 0,
        content_index: 0,
        delta: ".",
      },
      "response.output_text.delta",
    ),
  },
  anthropic: {
    keepAlive: sseFrame({ type: "ping" }, "ping"),
    content: sseFrame(
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "." } },
      "content_block_delta",
    ),
  },
};

describe("the overall deadline setting", () => {
  it("defaults to 10 minutes", () => {
    expect(DEFAULT_DEADLINE_MS).toBe(600_000);
  });
});

describe.each(CASES)("$name: a trickling stream ends", (providerCase) => {
  let server: FakeServer;
  beforeEach(async () => {
    server = await providerCase.start({ hangLimitMs: 8_000 });
  });
  afterEach(async () => {
    await server.close();
  });

  const trickling = (frame: string): ScriptedReply => {
    const opening = providerCase.wire.stream({ text: ["Thinking"], finish: null }, "hang");
    if (opening.kind !== "sse") throw new Error("expected an SSE reply");
    return { ...opening, ending: "hang", trickle: { frame, everyMs: 40 } };
  };

  /** The sample's failure and the wall-clock time it took (run with `it.live`: the timers are real). */
  const failure = (reply: ScriptedReply, options: CaseOptions) =>
    Effect.gen(function* () {
      server.enqueue(reply);
      const started = Date.now();
      const result = yield* Effect.either(providerCase.make(server, options).sample(request()));
      if (Either.isRight(result)) return yield* Effect.dieMessage("expected a ProviderError, got a response");
      return { error: result.left as ProviderError, elapsed: Date.now() - started };
    });

  it.live("fails with timeout when only keep-alive chunks arrive for longer than the idle timeout", () =>
    Effect.gen(function* () {
      const { error, elapsed } = yield* failure(trickling(FRAMES[providerCase.name].keepAlive), { timeoutMs: 400 });
      expect(error.reason).toBe("timeout");
      expect(error.message).toMatch(/no answer within 400 ms/);
      expect(elapsed).toBeLessThan(3_000);
      yield* Effect.promise(() => server.waitForAbandoned(1));
    }),
  );

  it.live("fails with timeout at the overall deadline although content keeps arriving", () =>
    Effect.gen(function* () {
      const { error, elapsed } = yield* failure(trickling(FRAMES[providerCase.name].content), {
        timeoutMs: 400,
        deadlineMs: 1_000,
      });
      expect(error.reason).toBe("timeout");
      expect(error.message).toMatch(/1000 ms deadline/);
      expect(elapsed).toBeGreaterThanOrEqual(900);
      expect(elapsed).toBeLessThan(4_000);
      yield* Effect.promise(() => server.waitForAbandoned(1));
    }),
  );
});
