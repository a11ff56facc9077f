import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { ToolCall } from "../../../src/domain/index.js";
import { scriptedProvider } from "../../../src/services/providers/scripted.js";
import {
  type CallPlannerOptions,
  isUsableIdentifier,
  planCalls,
  replacementCallId,
} from "../../../src/services/tools/callPlanner.js";
import {
  callStep,
  finish,
  ledgerViolations,
  lookupTool,
  textStep,
  useRuntimeHarness,
} from "../../support/runtimeHarness.js";

/**
 * Issue N item 4: call ids and tool names come from the model. An unusable id (key-shaped, bad
 * charset, too long) is replaced by a deterministic one with the original's sha256 beside it; an
 * unusable name becomes an `unknown_tool` refusal under a sanitized name. Never a failed run,
 * never a tool_call row without its receipt.
 */

const harness = useRuntimeHarness("agentloop-callids-");
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

const lookup = lookupTool();
const options = (): CallPlannerOptions => ({
  tools: new Map([[lookup.name, lookup]]),
  allowed: new Set([lookup.name]),
  defaultTimeoutMs: 1_000,
  usedCallIds: new Set(),
});
const call = (id: string, name = "lookup"): ToolCall => ({ id, name, arguments: {} });

const KEY_SHAPED = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345";
const UNUSABLE_IDS = [KEY_SHAPED, "call 1/é", "x".repeat(65), "call\n1"];
const PLAIN = /^[A-Za-z0-9_.:-]{1,64}$/;

describe("planCalls: unusable call ids", () => {
  it("keeps ordinary provider ids as they are", () => {
    for (const id of ["call_abc123", "toolu_01A09q90qw90lq917835lq9", "fc_68a1.b:2-x", "c1"]) {
      expect(isUsableIdentifier(id)).toBe(true);
      const [plan] = planCalls([call(id)], options());
      expect(plan!.call.id).toBe(id);
      expect(plan!.problem).toBeUndefined();
      expect(plan!.originalIdHash).toBeUndefined();
    }
  });

  it("replaces an unusable id with a deterministic plain one and records the original's sha256", () => {
    for (const id of UNUSABLE_IDS) {
      const [plan] = planCalls([call(id)], options());
      expect(plan!.call.id).toBe(replacementCallId(id));
      expect(plan!.call.id).toMatch(PLAIN);
      expect(plan!.call.id).not.toContain(id);
      expect(plan!.disposition).toBe("run");
      expect(plan!.originalIdHash).toBe(sha256(id));
      expect(plan!.problem).toBeUndefined();
      // The same bad id always maps to the same replacement.
      expect(planCalls([call(id)], options())[0]!.call.id).toBe(plan!.call.id);
    }
  });

  it("keeps replacements of one repeated bad id unique within the run", () => {
    const plans = planCalls([call(KEY_SHAPED), call(KEY_SHAPED)], options());
    expect(new Set(plans.map((plan) => plan.call.id)).size).toBe(2);
  });
});

describe("planCalls: unusable tool names", () => {
  it("refuses a name with a bad charset or over 64 characters as unknown_tool under a sanitized name", () => {
    for (const name of ["look up; rm -rf /", "n".repeat(65), "工具", KEY_SHAPED]) {
      const [plan] = planCalls([call("c1", name)], options());
      expect(plan!.disposition).toBe("unknown_tool");
      expect(plan!.call.name).toMatch(PLAIN);
      expect(plan!.call.name).not.toContain(KEY_SHAPED);
      expect(plan!.problem).toContain(plan!.call.name);
    }
  });
});

describe("a run with unusable ids and names from the model", () => {
  it("is not failed and every tool_call row has its receipt", async () => {
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Look it up.",
      provider: scriptedProvider([
        callStep(KEY_SHAPED, "lookup", { i: 1 }),
        callStep("bad id/with spaces", "lookup", { i: 2 }),
        callStep("y".repeat(80), "no such tool!"),
        textStep("Done."),
      ]),
      tools: [lookup],
    });
    const ledger = await finish(runtime, handle);
    expect(ledger.result.terminalState).not.toBe("failed");
    expect(ledgerViolations(ledger)).toEqual([]);
    const calls = ledger.events.filter((event) => event.type === "tool_call");
    expect(calls).toHaveLength(3);
    for (const event of calls) {
      const payload = event.payload as { callId: string; toolName: string };
      expect(payload.callId).toMatch(PLAIN);
      expect(payload.toolName).toMatch(PLAIN);
    }
    // The tool_call row keeps the sha256 of the id the model sent beside the replacement.
    expect(calls.map((event) => (event.payload as { originalIdHash?: string }).originalIdHash)).toEqual([
      sha256(KEY_SHAPED),
      sha256("bad id/with spaces"),
      sha256("y".repeat(80)),
    ]);
    expect(ledger.receipts.map((receipt) => receipt.status)).toEqual(["ok", "ok", "error"]);
    expect(JSON.stringify(ledger.events)).not.toContain(KEY_SHAPED);
  });
});
