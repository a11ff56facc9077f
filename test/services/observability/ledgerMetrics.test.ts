import { describe, expect, it } from "@effect/vitest";
import { Effect } from "effect";
import type { CassetteModelStep, CompletionContractInput } from "../../../src/domain/index.js";
import * as Ledger from "../../../src/persistence/ledger.js";
import { MemoryItemStore } from "../../../src/persistence/MemoryItemStore.js";
import type { AgentRuntime } from "../../../src/runtime/AgentRuntime.js";
import { ledgerMetricFamilies } from "../../../src/services/observability/ledgerMetrics.js";
import { renderFamilies } from "../../../src/services/observability/prometheus.js";
import { scriptedProvider } from "../../../src/services/providers/scripted.js";
import { callStep, lookupTool, textStep, useRuntimeHarness } from "../../support/runtimeHarness.js";
import { sampleValue } from "./support.js";

const harness = useRuntimeHarness("agentloop-ledger-metrics-");

const ledgerText = (file: string) =>
  ledgerMetricFamilies.pipe(Effect.map(renderFamilies), Effect.provide(Ledger.layer({ filename: file })));

const run = (runtime: AgentRuntime, steps: ReadonlyArray<CassetteModelStep>, contract?: CompletionContractInput) =>
  Effect.promise(
    () =>
      runtime.startRun({
        sessionId: "s",
        input: "Do the task.",
        provider: scriptedProvider(steps),
        tools: [lookupTool()],
        ...(contract ? { contract } : {}),
      }).result,
  );

const SERIES: ReadonlyArray<readonly [string, Record<string, string>?]> = [
  ["agent_runs_total", { terminal_state: "completed" }],
  ["agent_runs_total", { terminal_state: "unverified" }],
  ["agent_runs_total", { terminal_state: "failed" }],
  ["agent_terminal_without_tool_calls_total"],
  ["agent_provider_tool_protocol_invalid_total"],
  ["agent_receipt_missing_total", { evidence_mode: "observe" }],
  ["agent_claim_receipt_mismatch_total"],
  ["agent_correction_turn_total"],
  ["agent_ledger_write_failed_total"],
  ["agent_run_steps_count"],
  ["agent_run_steps_sum"],
];

describe("metrics derived from the ledger", () => {
  it.effect("equal what the live counters recorded for the same runs", () =>
    Effect.gen(function* () {
      const runtime = yield* Effect.promise(() => harness.makeRuntime());
      const before = runtime.metricsSnapshot();
      const observeLookup: CompletionContractInput = { evidenceMode: "observe", requiredToolNames: ["lookup"] };
      yield* run(runtime, [textStep("A plain answer.")]);
      yield* run(runtime, [callStep("c1", "lookup"), textStep("Found it.")], observeLookup);
      yield* run(runtime, [textStep("Looks fine."), textStep("Looks fine.")], observeLookup);
      yield* run(runtime, [textStep("I have checked it."), textStep("I have checked it.")]);
      yield* run(runtime, [
        { text: "", finishReason: "tool_calls" },
        { text: "", finishReason: "tool_calls" },
      ]);
      const after = runtime.metricsSnapshot();
      const derived = yield* ledgerText(harness.dbFile());
      expect(sampleValue(derived, "agent_runs_total")).toBe(5);
      for (const [name, labels] of SERIES) {
        const live = sampleValue(after, name, labels) - sampleValue(before, name, labels);
        expect({ name, labels, value: sampleValue(derived, name, labels) }).toEqual({ name, labels, value: live });
      }
    }),
  );

  it.effect(
    "counts memory items by provenance and status, pending as needs_evidence and rejected as admin_reject",
    () =>
      Effect.gen(function* () {
        const runtime = yield* Effect.promise(() => harness.makeRuntime());
        yield* Effect.promise(() =>
          runtime.run(
            Effect.gen(function* () {
              const items = yield* MemoryItemStore;
              const base = { scope: "user", source: "agentloop", evidence: {} };
              const [, , rejected] = yield* items.add([
                { ...base, content: "likes tabs", provenance: "user_stated", verificationStatus: "verified" },
                { ...base, content: "https://a.example.com", provenance: "user_stated", verificationStatus: "pending" },
                {
                  ...base,
                  content: "https://b.example.com",
                  provenance: "model_inference",
                  verificationStatus: "pending",
                },
              ]);
              yield* items.setStatus(rejected!.id, { status: "rejected" });
            }),
          ),
        );
        const derived = yield* ledgerText(harness.dbFile());
        expect({
          verified: sampleValue(derived, "agent_memory_candidate_total", {
            provenance: "user_stated",
            status: "verified",
          }),
          pending: sampleValue(derived, "agent_memory_candidate_total", { status: "pending" }),
          needsEvidence: sampleValue(derived, "agent_memory_rejected_total", { reason: "needs_evidence" }),
          adminReject: sampleValue(derived, "agent_memory_rejected_total", { reason: "admin_reject" }),
        }).toEqual({ verified: 1, pending: 1, needsEvidence: 1, adminReject: 1 });
      }),
  );

  it.effect("says which metrics the ledger does not record", () =>
    Effect.gen(function* () {
      yield* Effect.promise(async () => (await harness.makeRuntime()).dispose());
      const derived = yield* ledgerText(harness.dbFile());
      expect(derived).toMatch(/# HELP agent_history_legacy_fallback_total .*live counter only/);
      expect(derived).toMatch(/# HELP agent_channel_progress_suppressed_total .*live counter only/);
    }),
  );
});
