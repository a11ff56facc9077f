import { describe, expect, it } from "vitest";
import {
  anthropicFinish,
  assembleResponse,
  chatFinish,
  responsesFinish,
  ToolCallAssembler,
} from "../../../src/services/providers/streamAssembly.js";
import { reasonForErrorKind, retryAfterMs } from "../../../src/services/providers/transport.js";

/** The pure parts: finish-reason tables, retry hints, and assembly rules the wire tests do not reach. */

const reasonOf = (mapped: { reason: string; anomalies: ReadonlyArray<{ code: string }> } | undefined) =>
  mapped ? [mapped.reason, ...mapped.anomalies.map((anomaly) => anomaly.code)] : undefined;

describe("Chat Completions finish_reason", () => {
  it.each([
    ["stop", ["stop"]],
    ["tool_calls", ["tool_calls"]],
    ["function_call", ["tool_calls"]],
    ["length", ["length"]],
    ["content_filter", ["content_filter", "content_filter"]],
    ["mystery", ["error", "unknown_finish_reason"]],
  ])("maps %s to %j", (raw, expected) => {
    expect(reasonOf(chatFinish(raw))).toEqual(expected);
  });

  it("has no finish while finish_reason is null", () => {
    expect(chatFinish(null)).toBeUndefined();
  });
});

describe("Responses status", () => {
  it.each([
    [{ status: "completed" }, false, ["stop"]],
    [{ status: "completed" }, true, ["tool_calls"]],
    [{ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } }, false, ["length"]],
    [
      { status: "incomplete", incomplete_details: { reason: "content_filter" } },
      false,
      ["content_filter", "content_filter"],
    ],
    [{ status: "incomplete", incomplete_details: { reason: "other" } }, false, ["error", "unknown_finish_reason"]],
    [{ status: "cancelled" }, false, ["error", "unknown_finish_reason"]],
  ])("maps %j (function calls: %s) to %j", (response, hasCalls, expected) => {
    expect(reasonOf(responsesFinish(response, hasCalls))).toEqual(expected);
  });
});

describe("Anthropic stop_reason", () => {
  it.each([
    ["end_turn", ["stop"]],
    ["stop_sequence", ["stop"]],
    ["tool_use", ["tool_calls"]],
    ["max_tokens", ["length"]],
    ["model_context_window_exceeded", ["length"]],
    ["refusal", ["content_filter", "content_filter"]],
    ["pause_turn", ["error", "unknown_finish_reason"]],
  ])("maps %s to %j", (raw, expected) => {
    expect(reasonOf(anthropicFinish(raw))).toEqual(expected);
  });
});

describe("retry hints", () => {
  const headers = (entries: Record<string, string>) => new Headers(entries);

  it("prefers retry-after-ms over retry-after", () => {
    expect(retryAfterMs(headers({ "retry-after-ms": "250", "retry-after": "9" }))).toBe(250);
  });

  it("reads retry-after seconds", () => {
    expect(retryAfterMs(headers({ "retry-after": "1.5" }))).toBe(1500);
  });

  it("reads a retry-after HTTP date relative to now", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(retryAfterMs(headers({ "retry-after": "Wed, 01 Jan 2025 00:00:03 GMT" }), now)).toBe(3000);
  });

  it("takes a retry-after date in the past as no wait", () => {
    const now = Date.parse("2025-01-01T00:00:10Z");
    expect(retryAfterMs(headers({ "retry-after": "Wed, 01 Jan 2025 00:00:03 GMT" }), now)).toBe(0);
  });

  it("ignores an unreadable hint", () => {
    expect(retryAfterMs(headers({ "retry-after": "soon" }))).toBeUndefined();
  });

  it.each([
    ["rate_limit_error", "rate_limited"],
    ["overloaded_error", "server_error"],
    ["invalid_request_error", "bad_request"],
    ["authentication_error", "auth"],
  ])("classifies an in-stream error of kind %s as %s", (kind, reason) => {
    expect(reasonForErrorKind(kind)).toBe(reason);
  });
});

describe("assembly", () => {
  const assemble = (build: (calls: ToolCallAssembler) => void, finish = chatFinish("tool_calls")) => {
    const calls = new ToolCallAssembler();
    build(calls);
    return assembleResponse({
      step: 3,
      text: "",
      calls: calls.list(),
      finish,
      offeredTools: new Set(["lookup"]),
      streamed: false,
    });
  };

  it("keeps a call the output limit did not cut (it was complete) and drops only the cut one", () => {
    const response = assemble((calls) => {
      calls.open("0", { id: "a", name: "lookup", arguments: '{"i":1}' });
      calls.complete("0");
      calls.open("1", { id: "b", name: "lookup", arguments: '{"i":' });
    }, chatFinish("length"));
    expect(response.toolCalls.map((call) => call.id)).toEqual(["a"]);
    expect(response.malformedToolCalls.map((call) => call.id)).toEqual(["b"]);
    expect(response.anomalies.map((anomaly) => anomaly.code)).toEqual(["length_mid_tool_call"]);
  });

  it("numbers synthetic ids by step and position and keeps them unique", () => {
    const response = assemble((calls) => {
      calls.open("0", { name: "lookup" });
      calls.open("1", { id: "call_3_1", name: "lookup" });
    });
    expect(response.toolCalls.map((call) => call.id)).toEqual(["call_3_1", "call_3_1_2"]);
    expect(response.anomalies.map((anomaly) => anomaly.code)).toEqual(["missing_call_id", "duplicate_call_id"]);
  });

  it("lets the protocol's whole argument string replace the streamed fragments", () => {
    const response = assemble((calls) => {
      calls.open("0", { id: "a", name: "lookup" });
      calls.appendArguments("0", '{"i":');
      calls.setArguments("0", '{"i":7}');
    });
    expect(response.toolCalls).toEqual([{ id: "a", name: "lookup", arguments: { i: 7 } }]);
  });
});
