import { writeFileSync } from "node:fs";
import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import {
  channelPolicy,
  DEFAULT_FLAGS,
  FlagsError,
  loadFlags,
  memoryGateMode,
  ROLLOUT_STAGES,
  rolloutStage,
  runtimeFlagOptions,
  sessionFlagOptions,
} from "../../src/config/flags.js";
import { SessionRunner } from "../../src/host/sessionRunner.js";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import { MemoryTurnStore } from "../../src/persistence/MemoryTurnStore.js";
import type { AgentRuntime } from "../../src/runtime/AgentRuntime.js";
import { MemoryService } from "../../src/services/memory/MemoryService.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { sampleValue } from "../services/observability/support.js";
import { lookupTool, textStep, useRuntimeHarness } from "../support/runtimeHarness.js";

const harness = useRuntimeHarness("agentloop-flags-");

const writeJson = (name: string, value: unknown) => {
  const file = harness.path(name);
  writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value));
  return file;
};

describe("loadFlags", () => {
  it("returns the defaults when no file or variable sets a flag", () => {
    expect(loadFlags({ env: {} })).toEqual(DEFAULT_FLAGS);
  });

  it("reads a JSON file of camelCase flags", () => {
    const file = writeJson("flags.json", { receiptVerification: "observe", canonicalLedgerEnabled: false });
    expect(loadFlags({ file, env: {} })).toMatchObject({
      receiptVerification: "observe",
      canonicalLedgerEnabled: false,
    });
  });

  it("reads the seed's snake_case keys under agent_runtime", () => {
    const file = writeJson("flags.json", {
      agent_runtime: { channel_progress_enabled: false, legacy_history_mode: "off" },
    });
    expect(loadFlags({ file, env: {} })).toMatchObject({ channelProgressEnabled: false, legacyHistoryMode: "off" });
  });

  it("lets the environment override the file", () => {
    const file = writeJson("flags.json", { memoryGate: "off" });
    expect(loadFlags({ file, env: { AGENTLOOP_MEMORY_GATE: "observe" } }).memoryGate).toBe("observe");
  });

  it("reads boolean variables written as true/false, 1/0, yes/no or on/off", () => {
    const read = (value: string) =>
      loadFlags({ env: { AGENTLOOP_CANONICAL_LEDGER_ENABLED: value } }).canonicalLedgerEnabled;
    expect(["true", "1", "YES", "on", "false", "0", "no", "off"].map(read)).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });

  it("rejects a bad variable value with one error naming the variable", () => {
    expect(() => loadFlags({ env: { AGENTLOOP_RECEIPT_VERIFICATION: "maybe" } })).toThrow(
      new FlagsError({
        reason: "invalid_value",
        message: 'AGENTLOOP_RECEIPT_VERIFICATION must be one of off, observe, enforce, got "maybe"',
      }),
    );
    try {
      loadFlags({ env: { AGENTLOOP_RECEIPT_VERIFICATION: "maybe" } });
    } catch (error) {
      expect(error).toBeInstanceOf(FlagsError);
      expect(error).toMatchObject({ _tag: "FlagsError", reason: "invalid_value" });
    }
  });

  it("rejects a bad boolean variable naming the variable", () => {
    expect(() => loadFlags({ env: { AGENTLOOP_CHANNEL_PROGRESS_ENABLED: "sometimes" } })).toThrow(
      /^AGENTLOOP_CHANNEL_PROGRESS_ENABLED must be true or false, got "sometimes"$/,
    );
  });

  it("rejects a bad value in the file naming the file and the key", () => {
    const file = writeJson("flags.json", { memoryGate: "strict" });
    expect(() => loadFlags({ file, env: {} })).toThrow(
      `flags file ${file}: memoryGate must be one of off, observe, enforce`,
    );
  });

  it("rejects an unknown key naming it", () => {
    const file = writeJson("flags.json", { receiptVerificaton: "off" });
    expect(() => loadFlags({ file, env: {} })).toThrow(/unknown flag "receiptVerificaton"/);
  });

  it("rejects a file that is not JSON in one line", () => {
    const file = writeJson("flags.json", "{ not json");
    expect(() => loadFlags({ file, env: {} })).toThrow(/^flags file .* is not valid JSON: /);
  });
});

describe("rollout stages", () => {
  it("lists the six stages in the seed's order", () => {
    expect(ROLLOUT_STAGES.map((stage) => `${stage.stage} ${stage.name}`)).toEqual([
      "1 observability",
      "2 ledger_dual_write",
      "3 terminal_states",
      "4 progress_layering",
      "5 canonical_history",
      "6 memory_gate",
    ]);
  });

  it("changes no user-visible behaviour in the first two stages", () => {
    for (const stage of ROLLOUT_STAGES.slice(0, 2)) {
      expect(stage.flags).toMatchObject({
        canonicalLedgerEnabled: false,
        channelProgressEnabled: false,
        legacyHistoryMode: "fallback",
      });
      expect(stage.flags.receiptVerification).not.toBe("enforce");
      expect(stage.flags.memoryGate).not.toBe("enforce");
    }
  });

  it("enforces the memory gate only in the last stage", () => {
    expect(ROLLOUT_STAGES.map((stage) => stage.flags.memoryGate === "enforce")).toEqual([
      false,
      false,
      false,
      false,
      false,
      true,
    ]);
  });

  it("ends at the runtime's defaults", () => {
    expect(ROLLOUT_STAGES.at(-1)!.flags).toEqual(DEFAULT_FLAGS);
  });

  it("finds a stage by name or number and names the known ones when it cannot", () => {
    expect(rolloutStage("canonical_history").stage).toBe(5);
    expect(rolloutStage(3).name).toBe("terminal_states");
    expect(() => rolloutStage("everything")).toThrow(/unknown rollout stage "everything" \(known: 1 observability/);
  });
});

describe("flags switch behaviour", () => {
  const observeRun = async (runtime: AgentRuntime) => {
    const result = await runtime.startRun({
      sessionId: "s",
      input: "Look up item 1.",
      provider: scriptedProvider([textStep("Item 1 is fine."), textStep("Item 1 is fine.")]),
      tools: [lookupTool()],
      contract: { evidenceMode: "observe", requiredToolNames: ["lookup"] },
    }).result;
    const events = await runtime.run(Effect.flatMap(AgentRunStore, (store) => store.listRunEvents(result.runId)));
    return { result, terminal: events.at(-1)!.payload as Record<string, unknown> };
  };

  it("receiptVerification observe shows the user a completed run and records the verdict on the terminal event", async () => {
    const flags = loadFlags({ env: { AGENTLOOP_RECEIPT_VERIFICATION: "observe" } });
    const runtime = await harness.makeRuntime(runtimeFlagOptions(flags));
    const before = sampleValue(runtime.metricsSnapshot(), "agent_receipt_missing_total", { evidence_mode: "observe" });
    const { result, terminal } = await observeRun(runtime);
    expect([result.terminalState, result.terminalReason, result.finalText]).toEqual([
      "completed",
      "answered",
      "Item 1 is fine.",
    ]);
    expect(terminal.verification).toMatchObject({ mode: "observe", reason: "receipt_missing" });
    const after = sampleValue(runtime.metricsSnapshot(), "agent_receipt_missing_total", { evidence_mode: "observe" });
    expect(after - before).toBe(1);
  });

  it("receiptVerification enforce ends the same run unverified", async () => {
    const runtime = await harness.makeRuntime(runtimeFlagOptions(loadFlags({ env: {} })));
    const { result } = await observeRun(runtime);
    expect([result.terminalState, result.terminalReason]).toEqual(["unverified", "receipt_missing"]);
  });

  const consolidateAddress = async (gate: "observe" | "enforce") => {
    const runtime = await harness.makeRuntime();
    const flags = loadFlags({ env: { AGENTLOOP_MEMORY_GATE: gate } });
    const result = await runtime.startRun({
      sessionId: "s",
      input: "The docs moved to https://docs.example.com/v2 last week.",
      provider: scriptedProvider([textStep("Noted.")]),
    }).result;
    return runtime.run(
      Effect.flatMap(MemoryService, (memory) => memory.consolidateRun(result.runId, "user", memoryGateMode(flags))),
    );
  };

  it("memoryGate enforce holds an address the user stated as a pending candidate", async () => {
    const consolidation = await consolidateAddress("enforce");
    expect(consolidation.created.map((item) => [item.kind, item.verificationStatus])).toContainEqual([
      "url",
      "pending",
    ]);
  });

  it("memoryGate observe keeps the old behaviour (active) and records that the gate would have blocked it", async () => {
    const consolidation = await consolidateAddress("observe");
    const url = consolidation.created.find((item) => item.kind === "url")!;
    expect([url.verificationStatus, url.evidence.gate, consolidation.wouldBlock]).toEqual([
      "verified",
      "would_block",
      1,
    ]);
  });

  const legacyTurn = async (legacyHistoryMode: "fallback" | "off") => {
    const runtime = await harness.makeRuntime();
    await runtime.run(
      Effect.flatMap(MemoryTurnStore, (store) =>
        store.append([
          { sessionId: "old", role: "user", content: "What is the capital of France?", source: "chat" },
          { sessionId: "old", role: "assistant", content: "Paris.", source: "chat" },
        ]),
      ),
    );
    const flags = loadFlags({ env: { AGENTLOOP_LEGACY_HISTORY_MODE: legacyHistoryMode } });
    const runner = new SessionRunner(runtime, { flags: sessionFlagOptions(flags) });
    const handle = await runner.startTurn({
      sessionId: "old",
      input: "And of Italy?",
      provider: scriptedProvider([textStep("Rome.")]),
    });
    await handle.settled;
    return handle.history;
  };

  it("legacyHistoryMode fallback replays visible turns that have no ledger", async () => {
    const history = await legacyTurn("fallback");
    expect(history.legacyFallback).toBe(true);
    expect(history.context.messages.map((message) => message.content)).toContain("Paris.");
  });

  it("legacyHistoryMode off leaves visible turns without a ledger out of the history", async () => {
    const history = await legacyTurn("off");
    expect(history.legacyFallback).toBe(false);
    expect(history.context.messages.map((message) => message.content)).not.toContain("Paris.");
  });

  it("channelProgressEnabled false gives every route final_only, true the policy the route asks for", () => {
    const off = loadFlags({ env: { AGENTLOOP_CHANNEL_PROGRESS_ENABLED: "false" } });
    const on = loadFlags({ env: { AGENTLOOP_CHANNEL_PROGRESS_ENABLED: "true" } });
    expect([channelPolicy(off, "progress_updates"), channelPolicy(on, "progress_updates"), channelPolicy(on)]).toEqual([
      "final_only",
      "progress_updates",
      "final_only",
    ]);
  });
});
