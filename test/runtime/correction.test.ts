import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import type { CassetteModelStep, CompletionContractInput, ToolChoice } from "../../src/domain/index.js";
import { CORRECTION_MESSAGE } from "../../src/domain/index.js";
import type { Provider } from "../../src/services/providers/Provider.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { finish, ledgerViolations, lookupTool, useRuntimeHarness } from "../support/runtimeHarness.js";

const harness = useRuntimeHarness("agentloop-correction-");

/** A scripted provider that remembers the tool choice and tool names of every request. */
function recordingProvider(steps: ReadonlyArray<CassetteModelStep>, capabilities = {}) {
  const inner = scriptedProvider(steps, { capabilities });
  const seen: Array<{ toolChoice: ToolChoice; tools: string[] }> = [];
  const provider: Provider = {
    ...inner,
    sample: (request) =>
      Effect.suspend(() => {
        seen.push({ toolChoice: request.toolChoice, tools: request.tools.map((tool) => tool.name) });
        return inner.sample(request);
      }),
  };
  return { provider, seen };
}

const observeLookup: CompletionContractInput = { evidenceMode: "observe", requiredToolNames: ["lookup"] };

describe("correction turn", () => {
  it("writes the runtime-owned correction into the ledger and samples once more", async () => {
    const runtime = await harness.makeRuntime();
    const { provider } = recordingProvider([{ text: "I have checked it." }, { text: "I could not check it." }]);
    const handle = runtime.startRun({
      sessionId: "s",
      input: "Check item 1.",
      provider,
      tools: [lookupTool()],
      contract: observeLookup,
    });
    const outcome = await finish(runtime, handle);
    expect(outcome.result).toMatchObject({
      terminalState: "unverified",
      terminalReason: "receipt_missing",
      correctionTurns: 1,
    });
    expect(outcome.events.map((event) => event.type)).toEqual([
      "user_input",
      "assistant_output",
      "user_input",
      "assistant_output",
      "terminal",
    ]);
    const correction = outcome.events[2]!.payload as { text: string; origin: string };
    expect(correction.origin).toBe("runtime_correction");
    expect(correction.text.startsWith(CORRECTION_MESSAGE)).toBe(true);
    expect(correction.text).toContain("a successful lookup result");
    expect(ledgerViolations(outcome)).toEqual([]);
  });

  it("completes when the model answers the correction with the required tool", async () => {
    const runtime = await harness.makeRuntime();
    const { provider } = recordingProvider([
      { text: "I have checked it." },
      { toolCalls: [{ id: "c1", name: "lookup", arguments: { i: 1 } }] },
      { text: "Item 1 is 'item'." },
    ]);
    const handle = runtime.startRun({
      sessionId: "s",
      input: "Check item 1.",
      provider,
      tools: [lookupTool()],
      contract: observeLookup,
    });
    const outcome = await finish(runtime, handle);
    expect(outcome.result).toMatchObject({
      terminalState: "completed",
      terminalReason: "receipts_satisfied",
      correctionTurns: 1,
    });
  });

  it("never runs a second correction turn", async () => {
    const runtime = await harness.makeRuntime();
    const { provider, seen } = recordingProvider([{ text: "Checked." }, { text: "Checked." }, { text: "Checked." }]);
    const handle = runtime.startRun({
      sessionId: "s",
      input: "Check item 1.",
      provider,
      tools: [lookupTool()],
      contract: observeLookup,
    });
    const outcome = await finish(runtime, handle);
    expect(outcome.result.correctionTurns).toBe(1);
    expect(seen).toHaveLength(2);
  });

  it("records the verdict on the terminal event", async () => {
    const runtime = await harness.makeRuntime();
    const { provider } = recordingProvider([{ text: "Checked." }, { text: "Checked." }]);
    const outcome = await finish(
      runtime,
      runtime.startRun({ sessionId: "s", input: "Check.", provider, tools: [lookupTool()], contract: observeLookup }),
    );
    expect(outcome.events.at(-1)!.payload).toMatchObject({
      verification: { mode: "enforce", verdict: "unverified", reason: "receipt_missing" },
    });
  });
});

describe("tool selection policy at run time", () => {
  it("forces the required tool on the first step and the correction turn only", async () => {
    const runtime = await harness.makeRuntime();
    const { provider, seen } = recordingProvider([
      { text: "Checked." },
      { toolCalls: [{ id: "c1", name: "lookup", arguments: { i: 1 } }] },
      { text: "Item 1 is 'item'." },
    ]);
    await finish(
      runtime,
      runtime.startRun({ sessionId: "s", input: "Check.", provider, tools: [lookupTool()], contract: observeLookup }),
    );
    expect(seen.map((request) => request.toolChoice)).toEqual([
      { mode: "specific", toolName: "lookup" },
      { mode: "specific", toolName: "lookup" },
      { mode: "auto" },
    ]);
  });

  it("never forces a tool for a none contract", async () => {
    const runtime = await harness.makeRuntime();
    const { provider, seen } = recordingProvider([{ text: "Hello." }]);
    await finish(runtime, runtime.startRun({ sessionId: "s", input: "Hi", provider, tools: [lookupTool()] }));
    expect(seen[0]!.toolChoice).toEqual({ mode: "auto" });
  });

  it("sends no tool schemas to a provider without tool calling and ends unverified without pretending", async () => {
    const runtime = await harness.makeRuntime();
    const { provider, seen } = recordingProvider([{ text: "I have checked it." }], { toolCalling: false });
    const outcome = await finish(
      runtime,
      runtime.startRun({ sessionId: "s", input: "Check.", provider, tools: [lookupTool()], contract: observeLookup }),
    );
    expect(seen).toEqual([{ toolChoice: { mode: "none" }, tools: [] }]);
    expect(outcome.result).toMatchObject({ terminalState: "unverified", terminalReason: "tool_calling_unsupported" });
    expect(outcome.receipts).toEqual([]);
  });
});

describe("receiptVerification rollout switch", () => {
  it("observe records the verdict but reports what off would", async () => {
    const runtime = await harness.makeRuntime({ receiptVerification: "observe" });
    const { provider, seen } = recordingProvider([{ text: "I have checked it." }]);
    const outcome = await finish(
      runtime,
      runtime.startRun({ sessionId: "s", input: "Check.", provider, tools: [lookupTool()], contract: observeLookup }),
    );
    expect(outcome.result).toMatchObject({
      terminalState: "completed",
      terminalReason: "answered",
      correctionTurns: 0,
    });
    expect(seen).toHaveLength(1);
    expect(outcome.events.at(-1)!.payload).toMatchObject({
      verification: { mode: "observe", verdict: "correct", reason: "receipt_missing" },
    });
  });

  it("off completes text answers and records no verdict", async () => {
    const runtime = await harness.makeRuntime({ receiptVerification: "off" });
    const { provider } = recordingProvider([{ text: "I have checked it." }]);
    const outcome = await finish(
      runtime,
      runtime.startRun({ sessionId: "s", input: "Check.", provider, tools: [lookupTool()], contract: observeLookup }),
    );
    expect(outcome.result).toMatchObject({ terminalState: "completed", terminalReason: "answered" });
    expect(outcome.events.at(-1)!.payload).not.toHaveProperty("verification");
  });

  it("enforce is the default for new runtimes", async () => {
    const runtime = await harness.makeRuntime();
    const { provider } = recordingProvider([{ text: "I have checked it." }, { text: "Checked." }]);
    const outcome = await finish(
      runtime,
      runtime.startRun({ sessionId: "s", input: "Check.", provider, tools: [lookupTool()], contract: observeLookup }),
    );
    expect(outcome.result.terminalState).toBe("unverified");
  });
});
