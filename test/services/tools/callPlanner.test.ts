import { Effect } from "effect";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ToolCall } from "../../../src/domain/index.js";
import { type CallPlannerOptions, planCalls } from "../../../src/services/tools/callPlanner.js";
import { canonicalJson, inputFingerprint } from "../../../src/services/tools/fingerprint.js";
import { type AnyToolDefinition, defineTool } from "../../../src/services/tools/Tool.js";

const ok = () => Effect.succeed({ status: "ok" as const, output: "ok" });

const lookup = defineTool({
  name: "lookup",
  description: "looks an item up",
  kind: "observe",
  input: z.object({ i: z.number() }),
  execute: ok,
});
const slow = defineTool({
  name: "slow",
  description: "slow",
  kind: "observe",
  input: z.object({}),
  timeoutMs: 250,
  execute: ok,
});
const declaredOnly = defineTool({ name: "declared", description: "no executor", kind: "mutate", input: z.object({}) });
const forbidden = defineTool({
  name: "forbidden",
  description: "x",
  kind: "deliver",
  input: z.object({}),
  execute: ok,
});

function options(overrides: Partial<CallPlannerOptions> = {}): CallPlannerOptions {
  const tools: AnyToolDefinition[] = [lookup, slow, declaredOnly, forbidden];
  return {
    tools: new Map(tools.map((tool) => [tool.name, tool])),
    allowed: new Set(["lookup", "slow", "declared"]),
    defaultTimeoutMs: 1_000,
    usedCallIds: new Set(),
    ...overrides,
  };
}

const call = (name: string, args: ToolCall["arguments"], id = "c1"): ToolCall => ({ id, name, arguments: args });
const planOne = (raw: ToolCall, opts = options()) => planCalls([raw], opts)[0]!;

describe("planCalls dispositions", () => {
  it("runs a call to an allowed tool with an executor and valid arguments", () => {
    const plan = planOne(call("lookup", { i: 1 }));
    expect(plan.disposition).toBe("run");
    expect(plan.problem).toBeUndefined();
  });

  it("refuses a call to an undeclared tool as unknown_tool", () => {
    expect(planOne(call("nope", {}))).toMatchObject({
      disposition: "unknown_tool",
      problem: "there is no tool named nope",
    });
  });

  it("refuses a declared tool outside the allowed set as not_allowed", () => {
    expect(planOne(call("forbidden", {}))).toMatchObject({
      disposition: "not_allowed",
      problem: "forbidden is not allowed in this run",
    });
  });

  it("refuses a tool without an executor as executor_missing", () => {
    expect(planOne(call("declared", {}))).toMatchObject({
      disposition: "executor_missing",
      problem: "declared has no executor",
    });
  });

  it("refuses raw (unparseable) argument strings as invalid_arguments", () => {
    expect(planOne(call("lookup", '{"i": 1'))).toMatchObject({
      disposition: "invalid_arguments",
      problem: "arguments are not valid JSON",
    });
  });

  it("refuses arguments that fail the tool's zod schema as invalid_arguments, naming the field", () => {
    const plan = planOne(call("lookup", { i: "x" }));
    expect(plan.disposition).toBe("invalid_arguments");
    expect(plan.problem).toMatch(/^i: /);
  });

  it("checks unknown before allowed before executor before arguments", () => {
    // A not-allowed tool with bad arguments is reported as not allowed, not as invalid arguments.
    expect(planOne(call("forbidden", "{bad")).disposition).toBe("not_allowed");
    expect(planOne(call("declared", "{bad")).disposition).toBe("executor_missing");
  });

  it("uses the tool's own timeout, else the default", () => {
    expect(planOne(call("slow", {})).timeoutMs).toBe(250);
    expect(planOne(call("lookup", { i: 1 })).timeoutMs).toBe(1_000);
  });
});

describe("fingerprints", () => {
  it("are the sha256 of the canonical JSON of name and arguments", () => {
    expect(planOne(call("lookup", { i: 1 })).inputFingerprint).toBe(inputFingerprint("lookup", { i: 1 }));
    expect(inputFingerprint("lookup", { i: 1 })).toMatch(/^[0-9a-f]{64}$/);
  });

  it("do not depend on the key order of the arguments", () => {
    const a = planOne(call("lookup", { i: 1, nested: { x: 1, y: [1, { b: 2, a: 1 }] } }));
    const b = planOne(call("lookup", { nested: { y: [1, { a: 1, b: 2 }], x: 1 }, i: 1 }));
    expect(a.inputFingerprint).toBe(b.inputFingerprint);
  });

  it("differ when the arguments differ", () => {
    expect(planOne(call("lookup", { i: 1 })).inputFingerprint).not.toBe(
      planOne(call("lookup", { i: 2 })).inputFingerprint,
    );
  });

  it("differ between tools with the same arguments", () => {
    expect(inputFingerprint("a", {})).not.toBe(inputFingerprint("b", {}));
  });

  it("canonicalJson sorts keys at every depth and keeps array order", () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).toBe('{"a":{"c":null,"d":[2,1]},"b":1}');
  });

  it("canonicalJson leaves out undefined members, as JSON does, and keeps a fingerprint's value", () => {
    expect(canonicalJson({ b: undefined, a: [undefined, 1], "10": 2, "2": 3 })).toBe('{"10":2,"2":3,"a":[null,1]}');
    // The sha256 of '{"arguments":{"i":1},"name":"lookup"}': receipts written before keep matching.
    expect(inputFingerprint("lookup", { i: 1 })).toBe(
      "21b5a2bcc984ea67897b96cd2242963d4a13fb5a5fca18ddb500881c7ef2fe07",
    );
  });

  it("canonicalJson is the same for any key order of the same object (property)", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (object) => {
        const reversed = Object.fromEntries(Object.entries(object).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(object));
        expect(JSON.parse(canonicalJson(object))).toEqual(JSON.parse(JSON.stringify(object)));
      }),
      { numRuns: 200 },
    );
  });
});

describe("call ids", () => {
  it("keeps ids that were not used before and records them", () => {
    const used = new Set<string>();
    const plans = planCalls(
      [call("lookup", { i: 1 }, "a"), call("lookup", { i: 2 }, "b")],
      options({ usedCallIds: used }),
    );
    expect(plans.map((plan) => plan.call.id)).toEqual(["a", "b"]);
    expect([...used]).toEqual(["a", "b"]);
  });

  it("makes an id repeated in a later step unique", () => {
    const opts = options();
    const first = planCalls([call("lookup", { i: 1 }, "c1")], opts);
    const second = planCalls([call("lookup", { i: 2 }, "c1")], opts);
    const third = planCalls([call("lookup", { i: 3 }, "c1")], opts);
    expect([first[0]!.call.id, second[0]!.call.id, third[0]!.call.id]).toEqual(["c1", "c1_2", "c1_3"]);
  });

  it("makes an id repeated within one step unique", () => {
    const plans = planCalls([call("lookup", { i: 1 }, "x"), call("lookup", { i: 2 }, "x")], options());
    expect(plans.map((plan) => plan.call.id)).toEqual(["x", "x_2"]);
  });

  it("gives refused calls unique ids too", () => {
    const opts = options();
    planCalls([call("nope", {}, "c1")], opts);
    expect(planCalls([call("nope", {}, "c1")], opts)[0]!.call.id).toBe("c1_2");
  });
});
