import type { CompletionContract, ExecutionReceipt, PlannedCall } from "../../src/domain/index.js";
import { initialContext, type RunContext } from "../../src/machines/run/context.js";
import { inputFingerprint } from "../../src/services/tools/fingerprint.js";

/** A run's context at step 2 of 4, for the table tests of the run machine's pure modules. */

export const LOOKUP_CONTRACT: CompletionContract = {
  evidenceMode: "observe",
  requiredToolNames: ["lookup"],
  requiredReceiptKinds: [],
  allowUnverifiedAnswer: true,
  source: "caller",
};

export function runContext(overrides: Partial<RunContext> = {}): RunContext {
  return {
    ...initialContext({
      runId: "run-1",
      traceId: "trace-1",
      sessionId: "session-1",
      input: "What is the answer?",
      contract: LOOKUP_CONTRACT,
      toolKinds: { lookup: "observe" },
      maxSteps: 4,
      doomLoopThreshold: 3,
      maxProtocolRepairs: 1,
      toolConcurrency: 2,
      locale: "en",
      capabilities: { toolCalling: true, toolChoice: ["auto", "specific"] },
      receiptVerification: "enforce",
    }),
    step: 2,
    ...overrides,
  };
}

/** A `lookup` call that may run, needs no approval and times out after a second. */
export function plannedLookup(id: string, q: string, extra: Partial<PlannedCall> = {}): PlannedCall {
  return {
    call: { id, name: "lookup", arguments: { q } },
    disposition: "run",
    inputFingerprint: inputFingerprint("lookup", { q }),
    timeoutMs: 1_000,
    ...extra,
  };
}

/** The verified `ok` receipt of a planned `lookup` call, with any fields replaced. */
export const lookupReceipt = (planned: PlannedCall, fields: Partial<ExecutionReceipt> = {}): ExecutionReceipt => ({
  receiptId: `receipt-${planned.call.id}`,
  runId: "run-1",
  callId: planned.call.id,
  toolName: "lookup",
  status: "ok",
  startedAt: "2026-01-01T00:00:00.000Z",
  finishedAt: "2026-01-01T00:00:01.000Z",
  inputFingerprint: planned.inputFingerprint,
  evidence: {},
  verificationStatus: "verified",
  ...fields,
});
