import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import type { MemoryItem } from "../../domain/index.js";
import { AgentRunStore, type LedgerError } from "../../persistence/AgentRunStore.js";
import { MemoryItemStore } from "../../persistence/MemoryItemStore.js";
import { recordMemoryCandidates } from "../observability/metrics.js";
import { type ConsolidationPlan, type MemoryGateMode, planConsolidation } from "./consolidator.js";
import { retrieveMemory } from "./retrieval.js";

export interface ConsolidationResult {
  readonly created: ReadonlyArray<MemoryItem>;
  readonly promoted: ReadonlyArray<MemoryItem>;
  /** Candidates the gate would have kept pending (observe mode). */
  readonly wouldBlock: number;
}

/** Memory with provenance: consolidation after a run, retrieval before one. */
export interface MemoryServiceShape {
  readonly consolidateRun: (
    runId: string,
    scope: string,
    gate?: MemoryGateMode,
  ) => Effect.Effect<ConsolidationResult, LedgerError>;
  readonly activeMemory: (scope: string) => Effect.Effect<ReadonlyArray<MemoryItem>, LedgerError>;
}

export class MemoryService extends Context.Tag("agentloop/MemoryService")<MemoryService, MemoryServiceShape>() {}

export const memoryServiceLayer = Layer.effect(
  MemoryService,
  Effect.gen(function* () {
    const runs = yield* AgentRunStore;
    const items = yield* MemoryItemStore;
    const apply = Effect.fn("MemoryService.apply")(function* (plan: ConsolidationPlan, scope: string) {
      const created = yield* items.add(
        plan.create.map((candidate) => ({
          scope,
          content: candidate.content,
          source: "agentloop",
          evidence: { ...candidate.evidence, ...(candidate.gate ? { gate: candidate.gate } : {}) },
          provenance: candidate.provenance,
          sourceRef: candidate.sourceRef,
          verificationStatus: candidate.status,
          verifiedAt: candidate.status === "verified" ? new Date().toISOString() : null,
          confidence: candidate.confidence,
          kind: candidate.kind,
        })),
      );
      const promoted: MemoryItem[] = [];
      for (const promotion of plan.promote) {
        const item = yield* items.setStatus(promotion.id, {
          status: "verified",
          provenance: "receipt",
          sourceRef: promotion.sourceRef,
          confidence: 0.9,
          evidence: { confirmed_by: promotion.toolName },
        });
        if (item) promoted.push(item);
      }
      yield* recordMemoryCandidates(created);
      return { created, promoted, wouldBlock: plan.create.filter((candidate) => candidate.gate).length };
    });
    return MemoryService.of({
      consolidateRun: Effect.fn("MemoryService.consolidateRun")(function* (runId, scope, gate = "enforce") {
        const run = yield* runs.getRun(runId);
        if (!run) return { created: [], promoted: [], wouldBlock: 0 };
        const [ledger] = yield* runs.loadRunLedgers([run]);
        const existing = yield* items.list({ scope });
        return yield* apply(planConsolidation(ledger!, existing, gate), scope);
      }),
      activeMemory: (scope) => Effect.map(items.list({ scope }), (all) => retrieveMemory(all)),
    });
  }),
);
