import { describe, expect, it } from "@effect/vitest";
import { Effect, Either } from "effect";
import { afterEach, beforeEach } from "vitest";
import type { ModelResponse } from "../../../src/domain/index.js";
import { MAX_ARGUMENT_DEPTH } from "../../../src/services/providers/streamAssembly.js";
import { CASES, request } from "../../support/fakeServers/cases.js";
import { deepArgumentsReply, deepJson } from "../../support/fakeServers/malformed.js";
import type { FakeServer, ScriptedReply } from "../../support/fakeServers/shared.js";

/** Every protocol irregularity each adapter must name (ledger: provider_anomaly), per wire protocol. */

const codes = (response: ModelResponse) => response.anomalies.map((anomaly) => anomaly.code);

describe.each(CASES)("$name anomalies", (providerCase) => {
  let server: FakeServer;
  beforeEach(async () => {
    server = await providerCase.start();
  });
  afterEach(async () => {
    await server.close();
  });

  const respond = (reply: ScriptedReply) =>
    Effect.gen(function* () {
      server.enqueue(reply);
      const result = yield* Effect.either(providerCase.make(server).sample(request()));
      if (Either.isLeft(result)) return yield* Effect.dieMessage(`expected a response, got ${result.left.message}`);
      return result.right;
    });
  const stream = providerCase.wire.stream;

  it.effect.each([true, false])(
    "keeps a call whose arguments nest 100,000 deep out of the calls, as malformed (streamed: %s)",
    (streamed) =>
      Effect.gen(function* () {
        server.enqueue(deepArgumentsReply(providerCase, streamed, 100_000));
        const result = yield* Effect.either(providerCase.make(server, { stream: streamed }).sample(request()));
        if (Either.isLeft(result)) return yield* Effect.dieMessage(`expected a response, got ${result.left.message}`);
        expect(result.right.toolCalls).toEqual([]);
        expect(result.right.malformedToolCalls).toMatchObject([
          { name: "lookup", problem: `call 1 (lookup) has arguments nested deeper than ${MAX_ARGUMENT_DEPTH} levels` },
        ]);
        expect(codes(result.right)).toContain("tool_finish_without_parsed_calls");
      }),
  );

  it.effect("keeps a call whose arguments nest exactly as deep as the limit", () =>
    Effect.gen(function* () {
      const response = yield* respond(
        stream({ calls: [{ id: "call_d", name: "lookup", arguments: `{"i":${deepJson(MAX_ARGUMENT_DEPTH - 1)}}` }] }),
      );
      expect(response.toolCalls.map((call) => call.id)).toEqual(["call_d"]);
      expect(response.malformedToolCalls).toEqual([]);
    }),
  );

  it.effect("keeps non-JSON arguments as the raw string and reports arguments_not_json", () =>
    Effect.gen(function* () {
      const response = yield* respond(stream({ calls: [{ id: "call_a", name: "lookup", arguments: ["{i: ", "1"] }] }));
      expect(response.toolCalls).toEqual([{ id: "call_a", name: "lookup", arguments: "{i: 1" }]);
      expect(codes(response)).toEqual(["arguments_not_json"]);
    }),
  );

  it.effect("makes a repeated call id unique and reports duplicate_call_id", () =>
    Effect.gen(function* () {
      const response = yield* respond(
        stream({
          calls: [
            { id: "call_a", name: "lookup", arguments: '{"i":1}' },
            { id: "call_a", name: "lookup", arguments: '{"i":2}' },
          ],
        }),
      );
      expect(response.toolCalls.map((call) => call.id)).toEqual(["call_a", "call_a_2"]);
      expect(codes(response)).toEqual(["duplicate_call_id"]);
    }),
  );

  it.effect("gives a call without an id a synthetic one and reports missing_call_id", () =>
    Effect.gen(function* () {
      const response = yield* respond(stream({ calls: [{ name: "lookup", arguments: '{"i":1}' }] }));
      expect(response.toolCalls).toEqual([{ id: "call_1_1", name: "lookup", arguments: { i: 1 } }]);
      expect(codes(response)).toEqual(["missing_call_id"]);
    }),
  );

  it.effect("keeps a call to a tool the request did not offer and reports unknown_tool_name", () =>
    Effect.gen(function* () {
      const response = yield* respond(
        stream({ calls: [{ id: "call_a", name: "delete_everything", arguments: "{}" }] }),
      );
      expect(response.toolCalls).toEqual([{ id: "call_a", name: "delete_everything", arguments: {} }]);
      expect(codes(response)).toEqual(["unknown_tool_name"]);
    }),
  );

  it.effect("reports tool_finish_without_parsed_calls and keeps a nameless fragment as malformed", () =>
    Effect.gen(function* () {
      const response = yield* respond(
        stream({ calls: [{ id: "call_a", arguments: '{"i":1}' }], finish: "tool_calls" }),
      );
      expect(response.toolCalls).toEqual([]);
      expect(response.finishReason).toBe("tool_calls");
      expect(response.malformedToolCalls).toEqual([
        { id: "call_a", rawArguments: '{"i":1}', problem: "call 1 has no tool name" },
      ]);
      expect(codes(response)).toEqual(["tool_finish_without_parsed_calls"]);
    }),
  );

  it.effect("ends a stream that stops without a finish as finish error with stream_ended_early", () =>
    Effect.gen(function* () {
      const response = yield* respond(stream({ text: ["Half an ", "answer"], finish: null }));
      expect(response).toMatchObject({ text: "Half an answer", finishReason: "error", toolCalls: [] });
      expect(codes(response)).toEqual(["stream_ended_early"]);
    }),
  );

  it.effect("keeps a call cut off by a stream that ended early out of the parsed calls", () =>
    Effect.gen(function* () {
      const response = yield* respond(
        stream({ calls: [{ id: "call_a", name: "lookup", arguments: '{"i":', partial: true }], finish: null }),
      );
      expect(response.toolCalls).toEqual([]);
      expect(response.malformedToolCalls).toMatchObject([{ id: "call_a", name: "lookup", rawArguments: '{"i":' }]);
      expect(codes(response)).toEqual(["stream_ended_early"]);
    }),
  );

  it.effect("reports length_mid_tool_call and keeps the partial call as malformed", () =>
    Effect.gen(function* () {
      const response = yield* respond(
        stream({
          calls: [{ id: "call_a", name: "lookup", arguments: ['{"i"', ": 12"], partial: true }],
          finish: "length",
        }),
      );
      expect(response.finishReason).toBe("length");
      expect(response.toolCalls).toEqual([]);
      expect(response.malformedToolCalls).toMatchObject([{ id: "call_a", name: "lookup", rawArguments: '{"i": 12' }]);
      expect(codes(response)).toEqual(["length_mid_tool_call"]);
    }),
  );

  it.effect("maps a length stop of a text answer to finish length without anomaly", () =>
    Effect.gen(function* () {
      const response = yield* respond(stream({ text: "A long answ", finish: "length" }));
      expect(response).toMatchObject({ finishReason: "length", anomalies: [] });
    }),
  );

  it.effect("maps the content filter to finish content_filter and reports content_filter", () =>
    Effect.gen(function* () {
      const response = yield* respond(stream({ text: "I can't", finish: "content_filter" }));
      expect(response.finishReason).toBe("content_filter");
      expect(codes(response)).toEqual(["content_filter"]);
    }),
  );

  it.effect("maps an unknown finish reason to finish error and reports unknown_finish_reason", () =>
    Effect.gen(function* () {
      const response = yield* respond(stream({ text: "Partial", finish: "unknown" }));
      expect(response.finishReason).toBe("error");
      expect(codes(response)).toEqual(["unknown_finish_reason"]);
    }),
  );
});

// The Responses API has no tool finish of its own (a completed response with calls is one), so a
// tool finish that carries only text exists on the other two wires alone.
describe.each(CASES.filter((providerCase) => providerCase.name !== "openai-responses"))(
  "$name tool finish with text only",
  (providerCase) => {
    let server: FakeServer;
    beforeEach(async () => {
      server = await providerCase.start();
    });
    afterEach(async () => {
      await server.close();
    });

    it.effect("reports tool_finish_without_parsed_calls and keeps the text as the unparseable fragment", () =>
      Effect.gen(function* () {
        server.enqueue(providerCase.wire.stream({ text: "lookup(1)", finish: "tool_calls" }));
        const result = yield* Effect.either(providerCase.make(server).sample(request()));
        const response = Either.getOrThrow(result);
        expect(response.toolCalls).toEqual([]);
        expect(response.malformedToolCalls.map((call) => call.rawArguments)).toEqual(["lookup(1)"]);
        expect(codes(response)).toEqual(["tool_finish_without_parsed_calls"]);
      }),
    );
  },
);
