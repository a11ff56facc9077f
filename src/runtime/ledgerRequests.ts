import { randomUUID } from "node:crypto";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import { HostApprovalDecision, NONE_CONTRACT } from "../domain/index.js";
import { AgentRunStore, type NewRun } from "../persistence/AgentRunStore.js";
import { recordApprovalDecision } from "../persistence/approvals.js";
import { LedgerSignals } from "../persistence/ledgerSignals.js";
import { closeUndrivenRun, requestCancel } from "../persistence/runCancellation.js";
import { agentOf, providerOf, systemPromptOf } from "./runSettings.js";
import { type AgentRuntimeConfig, type EnqueueRunOptions, parsedContract } from "./runtimeConfig.js";

/**
 * What a runtime asks of the ledger for a host, about runs any process may drive: queue a run,
 * ask for a cancel, record a decision. Each is a ledger row (or one transaction of rows) that the
 * runtime driving the run acts on, and each refusal is said in the host's words.
 */

/** The ledger refused a host's request: the message says why, in one line. */
export class RequestRefused extends Data.TaggedError("RequestRefused")<{
  readonly reason: "cancel_refused" | "decision_refused" | "invalid_decision";
  readonly message: string;
}> {}

/** Why the ledger refused a cancel, in the host's words. */
const CANCEL_REFUSED: Readonly<Record<string, string>> = {
  invalid_payload: "no such run in the ledger",
  run_not_running: "the run has ended",
};

/** Why the ledger refused a host's decision, in the host's words. */
const DECISION_REFUSED: Readonly<Record<string, string>> = {
  already_decided: "it has a decision already",
  decision_without_request: "no such call waits for approval",
  call_already_settled: "the call has settled already",
  run_not_running: "the run has ended",
};

/** The run of a named agent, its first event and its place in the queue, in one transaction. */
export function enqueueRunRequest(config: AgentRuntimeConfig, options: EnqueueRunOptions) {
  const agent = agentOf(config, options.agent);
  const provider = providerOf(config, {}, "enqueueRun", agent);
  const contract = options.contract ?? agent.contract;
  const run: NewRun = {
    runId: options.runId ?? `run_${randomUUID()}`,
    sessionId: options.sessionId,
    traceId: options.traceId ?? randomUUID().replaceAll("-", ""),
    contract: contract ? parsedContract(contract) : NONE_CONTRACT,
    providerId: provider.id,
    model: provider.model,
    apiFamily: provider.apiFamily,
    verificationMode: config.receiptVerification ?? "enforce",
    agentName: options.agent,
    queued: true,
  };
  const queuedSystem: { system?: string | null } =
    options.system === undefined ? {} : { system: systemPromptOf(agent, options.system) ?? null };
  return Effect.gen(function* () {
    yield* (yield* LedgerSignals).prepareRunJobs;
    const store = yield* AgentRunStore;
    yield* store.createRun(run, [
      { sequence: 1, type: "user_input", payload: { text: options.input, origin: "user", ...queuedSystem } },
    ]);
    return run.runId;
  });
}

/**
 * The cancel request; a run nobody drives (still queued, or parked with its runtime gone) is
 * closed here. Says whether it was; fails with one line for a run that is not in the ledger or
 * has ended.
 */
export const cancelRunRequest = (runId: string, requestedBy: string) =>
  Effect.gen(function* () {
    const outcome = yield* Effect.either(requestCancel({ runId, requestedBy, requestedAt: new Date().toISOString() }));
    if (outcome._tag === "Left") {
      return yield* new RequestRefused({
        reason: "cancel_refused",
        message: `cannot cancel ${runId}: ${CANCEL_REFUSED[outcome.left.reason] ?? outcome.left.message}`,
      });
    }
    return yield* closeUndrivenRun(runId, requestedBy, outcome.right.queued);
  });

/** The decision as a ledger row; fails with one line when the ledger refuses it. */
export const decisionRequest = (runId: string, callId: string, input: HostApprovalDecision) =>
  Effect.gen(function* () {
    const parsed = HostApprovalDecision.safeParse(input);
    if (!parsed.success) {
      return yield* new RequestRefused({
        reason: "invalid_decision",
        message: `invalid approval decision: ${parsed.error.issues[0]?.message ?? "?"}`,
      });
    }
    const decision = parsed.data;
    const outcome = yield* Effect.either(recordApprovalDecision(runId, callId, decision));
    if (outcome._tag === "Left") {
      const verb = decision.decision === "approved" ? "approve" : "deny";
      return yield* new RequestRefused({
        reason: "decision_refused",
        message: `cannot ${verb} ${callId} of ${runId}: ${DECISION_REFUSED[outcome.left.reason] ?? outcome.left.message}`,
      });
    }
    return { toolName: outcome.right.toolName };
  });
