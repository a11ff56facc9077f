import Sqlite from "better-sqlite3";
import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import type { CassetteModelStep, CompletionContractInput } from "../../../src/domain/index.js";
import { SessionRunner } from "../../../src/host/sessionRunner.js";
import { MemoryTurnStore } from "../../../src/persistence/MemoryTurnStore.js";
import type { AgentRuntime } from "../../../src/runtime/AgentRuntime.js";
import { MemoryService } from "../../../src/services/memory/MemoryService.js";
import { recordMemoryRejected, recordProgressSuppressed } from "../../../src/services/observability/metrics.js";
import { scriptedProvider } from "../../../src/services/providers/scripted.js";
import type { AnyToolDefinition } from "../../../src/services/tools/Tool.js";
import { callStep, lookupTool, textStep, useRuntimeHarness } from "../../support/runtimeHarness.js";
import { deltas } from "./support.js";

const harness = useRuntimeHarness("agentloop-metrics-");

interface Script {
  readonly steps: ReadonlyArray<CassetteModelStep>;
  readonly tools?: ReadonlyArray<AnyToolDefinition>;
  readonly contract?: CompletionContractInput;
  readonly input?: string;
  readonly maxSteps?: number;
}

const runScript = async (runtime: AgentRuntime, script: Script) =>
  runtime.startRun({
    sessionId: "s",
    input: script.input ?? "Do the task.",
    provider: scriptedProvider(script.steps),
    ...(script.tools ? { tools: script.tools } : {}),
    ...(script.contract ? { contract: script.contract } : {}),
    ...(script.maxSteps ? { maxSteps: script.maxSteps } : {}),
  }).result;

/** A tool finish with no parseable call (an anomaly each time). */
const toolFinishWithoutCalls: CassetteModelStep = { text: "", finishReason: "tool_calls" };
const OBSERVE_LOOKUP: CompletionContractInput = { evidenceMode: "observe", requiredToolNames: ["lookup"] };

describe("run-end metrics", () => {
  it("agent_runs_total counts one run under its terminal state", async () => {
    const runtime = await harness.makeRuntime();
    const moved = await deltas(
      () => runtime.metricsSnapshot(),
      {
        completed: ["agent_runs_total", { terminal_state: "completed" }],
        unverified: ["agent_runs_total", { terminal_state: "unverified" }],
      },
      () => runScript(runtime, { steps: [textStep("A WAL logs changes first.")] }),
    );
    expect(moved).toEqual({ completed: 1, unverified: 0 });
  });

  it("agent_terminal_without_tool_calls_total counts a run that ended without any tool call", async () => {
    const runtime = await harness.makeRuntime();
    const moved = await deltas(
      () => runtime.metricsSnapshot(),
      { without: ["agent_terminal_without_tool_calls_total"] },
      () => runScript(runtime, { steps: [textStep("Nothing to call.")] }),
    );
    expect(moved.without).toBe(1);
  });

  it("agent_terminal_without_tool_calls_total stays put for a run that made a tool call", async () => {
    const runtime = await harness.makeRuntime();
    const moved = await deltas(
      () => runtime.metricsSnapshot(),
      { without: ["agent_terminal_without_tool_calls_total"] },
      () => runScript(runtime, { steps: [callStep("c1", "lookup"), textStep("Found it.")], tools: [lookupTool()] }),
    );
    expect(moved.without).toBe(0);
  });

  it("agent_provider_tool_protocol_invalid_total counts every tool finish without a parseable call", async () => {
    const runtime = await harness.makeRuntime();
    let state = "";
    const moved = await deltas(
      () => runtime.metricsSnapshot(),
      {
        invalid: ["agent_provider_tool_protocol_invalid_total"],
        reason: ["agent_terminal_reason_total", { reason: "provider_tool_protocol_invalid" }],
      },
      async () => {
        const result = await runScript(runtime, {
          steps: [toolFinishWithoutCalls, toolFinishWithoutCalls],
          tools: [lookupTool()],
        });
        state = `${result.terminalState}/${result.terminalReason}`;
      },
    );
    expect(state).toBe("failed/provider_tool_protocol_invalid");
    expect(moved).toEqual({ invalid: 2, reason: 1 });
  });

  it("agent_receipt_missing_total counts an unverified run under its contract's evidence mode", async () => {
    const runtime = await harness.makeRuntime();
    const moved = await deltas(
      () => runtime.metricsSnapshot(),
      {
        observe: ["agent_receipt_missing_total", { evidence_mode: "observe" }],
        none: ["agent_receipt_missing_total", { evidence_mode: "none" }],
      },
      () =>
        runScript(runtime, {
          steps: [textStep("Item 1 is fine."), textStep("Item 1 is fine.")],
          tools: [lookupTool()],
          contract: OBSERVE_LOOKUP,
        }),
    );
    expect(moved).toEqual({ observe: 1, none: 0 });
  });

  it("agent_claim_receipt_mismatch_total counts an answer that claims an action no receipt backs", async () => {
    const runtime = await harness.makeRuntime();
    const moved = await deltas(
      () => runtime.metricsSnapshot(),
      { mismatch: ["agent_claim_receipt_mismatch_total"], missing: ["agent_receipt_missing_total"] },
      () => runScript(runtime, { steps: [textStep("I have checked it."), textStep("I have checked it.")] }),
    );
    expect(moved).toEqual({ mismatch: 1, missing: 0 });
  });

  it("agent_correction_turn_total counts the correction turn a run took", async () => {
    const runtime = await harness.makeRuntime();
    const moved = await deltas(
      () => runtime.metricsSnapshot(),
      {
        corrections: ["agent_correction_turn_total"],
        completed: ["agent_runs_total", { terminal_state: "completed" }],
      },
      () =>
        runScript(runtime, {
          steps: [textStep("Item 1 is fine."), callStep("c1", "lookup"), textStep("Item 1 is 'item'.")],
          tools: [lookupTool()],
          contract: OBSERVE_LOOKUP,
        }),
    );
    expect(moved).toEqual({ corrections: 1, completed: 1 });
  });

  it("agent_ledger_write_failed_total counts a run that ended failed/ledger_write_failed", async () => {
    const migrate = await harness.makeRuntime();
    await migrate.dispose();
    const db = new Sqlite(harness.dbFile());
    db.exec(`CREATE TRIGGER fail_result BEFORE INSERT ON agent_run_events
      WHEN NEW.event_type = 'tool_result' BEGIN SELECT RAISE(ABORT, 'simulated disk failure'); END`);
    db.close();
    const runtime = await harness.makeRuntime();
    const moved = await deltas(
      () => runtime.metricsSnapshot(),
      { failed: ["agent_ledger_write_failed_total"], runs: ["agent_runs_total", { terminal_state: "failed" }] },
      () => runScript(runtime, { steps: [callStep("c1", "lookup"), textStep("Found it.")], tools: [lookupTool()] }),
    );
    expect(moved).toEqual({ failed: 1, runs: 1 });
  });

  it("agent_terminal_reason_total counts a run that reached max_steps", async () => {
    const runtime = await harness.makeRuntime();
    const moved = await deltas(
      () => runtime.metricsSnapshot(),
      { maxSteps: ["agent_terminal_reason_total", { terminal_state: "incomplete", reason: "max_steps_reached" }] },
      () =>
        runScript(runtime, {
          steps: [callStep("c1", "lookup", { i: 1 }), callStep("c2", "lookup", { i: 2 })],
          tools: [lookupTool()],
          maxSteps: 1,
        }),
    );
    expect(moved.maxSteps).toBe(1);
  });

  it("the duration and steps histograms observe one value per run", async () => {
    const runtime = await harness.makeRuntime();
    const moved = await deltas(
      () => runtime.metricsSnapshot(),
      {
        durations: ["agent_run_duration_seconds_count"],
        steps: ["agent_run_steps_count"],
        stepSum: ["agent_run_steps_sum"],
        atMostTwo: ["agent_run_steps_bucket", { le: "2" }],
        atMostOne: ["agent_run_steps_bucket", { le: "1" }],
      },
      () => runScript(runtime, { steps: [callStep("c1", "lookup"), textStep("Found it.")], tools: [lookupTool()] }),
    );
    expect(moved).toEqual({ durations: 1, steps: 1, stepSum: 2, atMostTwo: 1, atMostOne: 0 });
  });
});

describe("session and memory metrics", () => {
  it("agent_history_legacy_fallback_total counts a turn whose history fell back to visible turns", async () => {
    const runtime = await harness.makeRuntime();
    await runtime.run(
      Effect.flatMap(MemoryTurnStore, (store) =>
        store.append([
          { sessionId: "old", role: "user", content: "What is the capital of France?", source: "chat" },
          { sessionId: "old", role: "assistant", content: "Paris.", source: "chat" },
        ]),
      ),
    );
    const runner = new SessionRunner(runtime);
    const moved = await deltas(
      () => runtime.metricsSnapshot(),
      { fallback: ["agent_history_legacy_fallback_total"] },
      async () => {
        const handle = await runner.startTurn({
          sessionId: "old",
          input: "And of Italy?",
          provider: scriptedProvider([textStep("Rome.")]),
        });
        await handle.settled;
      },
    );
    expect(moved.fallback).toBe(1);
  });

  it("agent_history_legacy_fallback_total stays put for a session without visible turns", async () => {
    const runtime = await harness.makeRuntime();
    const runner = new SessionRunner(runtime);
    const moved = await deltas(
      () => runtime.metricsSnapshot(),
      { fallback: ["agent_history_legacy_fallback_total"] },
      async () => {
        const handle = await runner.startTurn({
          sessionId: "new",
          input: "Hello.",
          provider: scriptedProvider([textStep("Hi.")]),
        });
        await handle.settled;
      },
    );
    expect(moved.fallback).toBe(0);
  });

  const consolidate = async (runtime: AgentRuntime, input: string, gate: "off" | "observe" | "enforce") => {
    const result = await runScript(runtime, { input, steps: [textStep("Noted.")] });
    return runtime.run(Effect.flatMap(MemoryService, (memory) => memory.consolidateRun(result.runId, "user", gate)));
  };

  it("agent_memory_candidate_total counts a created item by provenance and status", async () => {
    const runtime = await harness.makeRuntime();
    const moved = await deltas(
      () => runtime.metricsSnapshot(),
      { preference: ["agent_memory_candidate_total", { provenance: "user_stated", status: "verified" }] },
      () => consolidate(runtime, "I prefer tabs over spaces.", "enforce"),
    );
    expect(moved.preference).toBe(1);
  });

  it("agent_memory_rejected_total counts a candidate the gate held pending as needs_evidence", async () => {
    const runtime = await harness.makeRuntime();
    const moved = await deltas(
      () => runtime.metricsSnapshot(),
      {
        rejected: ["agent_memory_rejected_total", { reason: "needs_evidence" }],
        pending: ["agent_memory_candidate_total", { status: "pending" }],
      },
      () => consolidate(runtime, "The docs live at https://docs.example.com/guide now.", "enforce"),
    );
    expect(moved).toEqual({ rejected: 1, pending: 1 });
  });

  it("agent_memory_gate_would_block_total counts what the observe gate let through", async () => {
    const runtime = await harness.makeRuntime();
    const moved = await deltas(
      () => runtime.metricsSnapshot(),
      {
        wouldBlock: ["agent_memory_gate_would_block_total"],
        rejected: ["agent_memory_rejected_total"],
      },
      () => consolidate(runtime, "The docs live at https://docs.example.com/guide now.", "observe"),
    );
    expect(moved).toEqual({ wouldBlock: 1, rejected: 0 });
  });

  it("recordMemoryRejected counts an admin rejection under its reason", async () => {
    const runtime = await harness.makeRuntime();
    const moved = await deltas(
      () => runtime.metricsSnapshot(),
      { admin: ["agent_memory_rejected_total", { reason: "admin_reject" }] },
      async () => recordMemoryRejected("admin_reject"),
    );
    expect(moved.admin).toBe(1);
  });

  it("recordProgressSuppressed adds the suppressed count under the channel", async () => {
    const runtime = await harness.makeRuntime();
    const moved = await deltas(
      () => runtime.metricsSnapshot(),
      { web: ["agent_channel_progress_suppressed_total", { channel: "web" }] },
      async () => recordProgressSuppressed(3, "web"),
    );
    expect(moved.web).toBe(3);
  });
});
