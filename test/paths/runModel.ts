/**
 * The run machine's model (shared by run.paths and replay.paths): its inputs, the I/O actor's
 * answers computed from the commands the machine sends it, the tool batch's outcomes, and a model
 * of the ledger's rules against which the writes those commands ask for are replayed.
 *
 * The I/O actor never runs during traversal. The command it is working on is carried beside each
 * snapshot (`RUN_CARRY`, from the `sendTo("io", …)` actions each transition executes) and is part
 * of a node's key: the answers offered in a node are computed from that command — a
 * RESULTS_RECORDED carries receipts for exactly the settlements the machine asked to record, a
 * SAMPLED answers the step the machine asked for, a FINISHED carries the closing receipts of the
 * calls the FINISH command lists as unsettled.
 */
import type { AnyMachineSnapshot, EventObject } from "xstate";
import {
  type ApprovalNotice,
  type BatchReply,
  type CompletionContract,
  correctionText,
  type ExecutionReceipt,
  type ExecutorResult,
  evidenceGap,
  type FinishReason,
  type FinishRunInput,
  type PendingEvent,
  type PlannedCall,
  type ProviderCapabilities,
  type ReceiptStatus,
  type RunCommand,
  type RunReply,
  type SampleOutcome,
  type ToolSettlement,
  type Verdict,
} from "../../src/domain/index.js";
import type { RunContext, RunInput } from "../../src/machines/run/context.js";
import { type RunDecision, runsAlone } from "../../src/machines/run/decisions.js";
import {
  cancelledSettlement,
  resultSettlement,
  timedOutSettlement,
  unapprovedSettlement,
} from "../../src/machines/settlements.js";
import type { ToolBatchContext } from "../../src/machines/toolBatch/machine.js";
import { canonicalJson, inputFingerprint, sha256 } from "../../src/services/tools/fingerprint.js";
import {
  type Carry,
  carriedOf,
  doneActor,
  type ExecutedAction,
  errorActor,
  type GraphOptions,
  invokedContext,
  type RecordedStep,
  sentBy,
} from "./coverage.js";

// --- Inputs ------------------------------------------------------------------------------------------

export const TOOL = "lookup";
/**
 * The planned timeout of every `lookup` call; the replay's fixture tool uses the same (long enough
 * that an instant fixture outcome never races it, short enough that a timed-out call costs little).
 */
export const TOOL_TIMEOUT_MS = 400;
export const FIXED_TIME = "2024-05-01T00:00:00.000Z";
export const RUN_ID = "run-model";

/** A provider that supports tool calling and every tool choice mode. */
export const FULL_CAPABILITIES: ProviderCapabilities = {
  toolCalling: true,
  toolChoice: ["auto", "required", "none", "specific"],
};

export const OBSERVE_LOOKUP: CompletionContract = {
  evidenceMode: "observe",
  requiredToolNames: [TOOL],
  requiredReceiptKinds: [],
  allowUnverifiedAnswer: true,
  source: "caller",
};

export const NONE: CompletionContract = {
  evidenceMode: "none",
  requiredToolNames: [],
  requiredReceiptKinds: [],
  allowUnverifiedAnswer: true,
  source: "default",
};

/**
 * A small run: maxSteps 2–3, doomLoopThreshold 2, maxProtocolRepairs 1, one call per step. Every
 * counter the decisions read (step, protocolRepairs, correctionTurns, receipts, callLog …) is then
 * bounded, so the full context can stay in each node's identity.
 */
export function runInput(contract: CompletionContract, overrides: Partial<Omit<RunInput, "contract">> = {}): RunInput {
  return {
    runId: RUN_ID,
    traceId: "trace-model",
    sessionId: "session-model",
    input: "What is the answer?",
    contract,
    toolKinds: { [TOOL]: "observe" },
    maxSteps: 3,
    doomLoopThreshold: 2,
    maxProtocolRepairs: 1,
    toolConcurrency: 2,
    locale: "en",
    capabilities: FULL_CAPABILITIES,
    // The runtime's default.
    receiptVerification: "enforce",
    ...overrides,
  };
}

// --- Provider outcomes ---------------------------------------------------------------------------------

export type CallVariant = "a" | "b";
const CALL_ARGS: Record<CallVariant, { q: string }> = { a: { q: "alpha" }, b: { q: "beta" } };
/** Text that comes with the call (commentary), so `acceptCalls`' commentary branch is exercised. */
const CALL_TEXT: Record<CallVariant, string> = { a: "", b: "Let me look that up." };

/** Call ids are per step, as the runtime's planner makes them unique per run. */
export const callId = (step: number, variant: CallVariant) => `call-${step}-${variant}`;

export function plannedCall(step: number, variant: CallVariant): PlannedCall {
  return {
    call: { id: callId(step, variant), name: TOOL, arguments: CALL_ARGS[variant] },
    disposition: "run",
    inputFingerprint: inputFingerprint(TOOL, CALL_ARGS[variant]),
    timeoutMs: TOOL_TIMEOUT_MS,
  };
}

/** A named, representative provider outcome; `outcome(step)` builds it for the step being sampled. */
export interface SampleChoice {
  readonly name: string;
  readonly outcome: (step: number) => SampleOutcome;
}

/** A response as the adapter reports it: no adapter anomalies, not streamed (the scripted provider's defaults). */
const respond = (text: string, finishReason: FinishReason, calls: PlannedCall[] = []): SampleOutcome => ({
  type: "response",
  text,
  finishReason,
  calls,
  malformed: [],
  anomalies: [],
  streamed: false,
});

export const ANSWER_TEXT = "The answer is 42.";

export const SAMPLE_CHOICES: ReadonlyArray<SampleChoice> = [
  { name: "answer/stop", outcome: () => respond(ANSWER_TEXT, "stop") },
  { name: "answer/length", outcome: () => respond(ANSWER_TEXT, "length") },
  { name: "answer/content_filter", outcome: () => respond(ANSWER_TEXT, "content_filter") },
  { name: "answer/error", outcome: () => respond(ANSWER_TEXT, "error") },
  { name: "empty/stop", outcome: () => respond("", "stop") },
  { name: "empty/length", outcome: () => respond("", "length") },
  { name: "empty/content_filter", outcome: () => respond("", "content_filter") },
  { name: "empty/error", outcome: () => respond("", "error") },
  { name: "tool_calls/no_calls", outcome: () => respond("", "tool_calls") },
  { name: "call/a", outcome: (step) => respond(CALL_TEXT.a, "tool_calls", [plannedCall(step, "a")]) },
  { name: "call/b", outcome: (step) => respond(CALL_TEXT.b, "tool_calls", [plannedCall(step, "b")]) },
  // Two calls run in a tool batch (one call that may run and needs no approval, the run executes alone).
  {
    name: "calls/a+b",
    outcome: (step) => respond(CALL_TEXT.a, "tool_calls", [plannedCall(step, "a"), plannedCall(step, "b")]),
  },
  {
    name: "failure/provider_error",
    outcome: () => ({ type: "failure", reason: "provider_error", message: "provider returned 500" }),
  },
  {
    name: "failure/script_exhausted",
    outcome: () => ({ type: "failure", reason: "script_exhausted", message: "the script ran out" }),
  },
];

// --- Tool settlements and receipts ----------------------------------------------------------------------

/** A call's settlement, built by the same builders the tool batch uses. */
export function settlementOf(planned: PlannedCall, status: ReceiptStatus): ToolSettlement {
  switch (status) {
    case "ok":
    case "error":
      return resultSettlement(planned, {
        status,
        ...(status === "error" ? { reason: "tool_error" as const } : {}),
        output: status === "ok" ? { found: planned.call.arguments } : { error: `no entry for ${planned.call.id}` },
        evidence: {},
        startedAt: FIXED_TIME,
        finishedAt: FIXED_TIME,
      });
    case "timed_out":
      return timedOutSettlement(planned, FIXED_TIME);
    case "cancelled":
      return cancelledSettlement(planned, FIXED_TIME);
    case "denied":
      return unapprovedSettlement(planned, DENIED);
    case "expired":
      return unapprovedSettlement(planned, {
        decision: "expired",
        timeoutMs: APPROVAL_TIMEOUT_MS,
        decidedBy: "runtime",
      });
  }
}

// --- Approval of calls ------------------------------------------------------------------------

export const APPROVAL_TIMEOUT_MS = 1_000;
const DENIED = { decision: "denied", message: "no", decidedBy: "host", decidedAt: FIXED_TIME } as const;

/** A call of the model that waits for approval before it runs. */
export const needingApproval = (planned: PlannedCall): PlannedCall => ({
  ...planned,
  approval: { reason: "the policy asks", timeoutMs: APPROVAL_TIMEOUT_MS },
});

/**
 * What the batch may tell the run of its calls' approvals: that a call whose request is durable
 * waits (once per call that needs approval — which ones the batch shows is its own to decide and
 * its path test's to check), and, while the run shows a wait, that none waits any more.
 * Decisions never reach the run: they go to the batch.
 */
function approvalEvents(snapshot: AnyMachineSnapshot, batch: ToolBatchContext): EventObject[] {
  const events: EventObject[] = [];
  const shown = shownOf(snapshot);
  for (const { planned } of batch.calls) {
    if (!planned.approval || shown.includes(planned.call.id)) continue;
    const notice: ApprovalNotice = {
      type: "APPROVAL_WAITING",
      runId: batch.runId,
      step: batch.step,
      callId: planned.call.id,
      toolName: planned.call.name,
      arguments: planned.call.arguments,
      reason: planned.approval.reason,
    };
    events.push(notice);
  }
  if (approvalRegionOf(snapshot) === "awaitingApproval") events.push({ type: "NO_APPROVAL_WAITING" });
  return events;
}

/** The run's approval region: `idle` or `awaitingApproval` (undefined outside `active`). */
export const approvalRegionOf = (snapshot: AnyMachineSnapshot): string | undefined =>
  typeof snapshot.value === "object"
    ? (snapshot.value as { active?: { approval?: string } }).active?.approval
    : undefined;

const APPROVAL_EVENT_TYPES = ["APPROVAL_WAITING", "NO_APPROVAL_WAITING"];

/** How the batch of a step may end: settled, or — once a CANCEL reached it — cancelled (a call may still have finished first). */
export const batchStatuses = (cancelRequested: boolean): ReceiptStatus[] =>
  cancelRequested ? ["ok", "cancelled"] : ["ok", "error", "timed_out"];

/** A receipt for a settlement, stamped as the RECORD_RESULTS handler stamps it (an observe tool). */
export function receiptOf(runId: string, settlement: ToolSettlement): ExecutionReceipt {
  const outputJson = canonicalJson(settlement.output);
  return {
    receiptId: `${runId}:${settlement.callId}`,
    runId,
    callId: settlement.callId,
    toolName: settlement.toolName,
    status: settlement.status,
    ...(settlement.reason ? { reason: settlement.reason } : {}),
    startedAt: settlement.startedAt ?? FIXED_TIME,
    finishedAt: settlement.finishedAt ?? FIXED_TIME,
    inputFingerprint: settlement.inputFingerprint,
    evidence: {
      ...settlement.evidence,
      output_sha256: sha256(outputJson),
      output_bytes: Buffer.byteLength(outputJson),
    },
    verificationStatus: settlement.status === "ok" ? "verified" : "unverified",
  };
}

/**
 * The receipts FINISH writes while closing, as the FINISH handler writes them: a `cancelled` receipt
 * for each unsettled call (`cancelled_by_user` when the user cancelled, else `interrupted`).
 */
export function closingReceiptsOf(finish: FinishRunInput): ExecutionReceipt[] {
  return finish.unsettled.map((planned) =>
    receiptOf(finish.runId, {
      callId: planned.call.id,
      toolName: planned.call.name,
      inputFingerprint: planned.inputFingerprint,
      status: "cancelled",
      reason: finish.terminal.reason === "cancelled_by_user" ? "cancelled_by_user" : "interrupted",
      output: { error: "the run ended before this call reported" },
      evidence: {},
      startedAt: null,
      finishedAt: null,
    }),
  );
}

// --- Verdicts ------------------------------------------------------------------------------------------

/**
 * What an answer without receipts misses under the observe contract, as evidenceGap words it, so
 * the modelled verdicts are the very ones verifyAnswer gives such an answer (the replay relies on it).
 */
const MISSING = evidenceGap(OBSERVE_LOOKUP, [], { [TOOL]: "observe" }).missing;

/** The verifier's possible verdicts; `correct` carries the runtime-owned correction message. */
export const VERDICTS: ReadonlyArray<Verdict> = [
  { verdict: "completed", reason: "receipts_satisfied", missing: [] },
  { verdict: "unverified", reason: "receipt_missing", missing: MISSING },
  { verdict: "correct", reason: "receipt_missing", missing: MISSING, correction: correctionText(MISSING) },
];

// --- The I/O actor's answers ------------------------------------------------------------------------------

export const LEDGER_DOWN = "ledger write refused";
export const ACTOR_CRASH = "actor crashed";

/** The replies of the I/O actor (everything else the run machine handles is its own decision or CANCEL). */
export const REPLY_TYPES: ReadonlySet<string> = new Set<string>([
  "OPENED",
  "SAMPLED",
  "CALLS_RECORDED",
  "TURN_RECORDED",
  "RESULTS_RECORDED",
  "VERIFIED",
  "VERIFY_FAILED",
  "FINISHED",
  "LEDGER_FAILED",
  "TOOL_STARTED",
  // The I/O actor's last word on a call the run executes alone (CALL_STARTED leaves it working).
  "CALL_SETTLED",
]);

/** The decisions the machine raises to itself: never sent from outside. */
export const DECISION_TYPES: ReadonlyArray<RunDecision["type"]> = [
  "CALLS",
  "REPAIR",
  "ANSWER",
  "CORRECT",
  "CONTINUE",
  "RUN_CALLS",
  "CANCEL_CALLS",
  "STOP",
];

/** The commands that write to the ledger (answered by LEDGER_FAILED when the write is refused). */
export const LEDGER_WRITES: ReadonlyArray<RunCommand["type"]> = [
  "OPEN",
  "RECORD_CALLS",
  "RECORD_TURN",
  "RECORD_RESULTS",
  "FINISH",
];

/** The commands a step sent to the I/O actor. */
export const ioCommands = (step: RecordedStep): RunCommand[] =>
  sentBy(step)
    .filter((sent) => sent.to === "io")
    .map((sent) => sent.event as RunCommand);

/** The one command a step sent that the I/O actor answers (STOP_SAMPLE and ABORT have no answer). */
function answerable(actions: ReadonlyArray<ExecutedAction>): RunCommand | undefined {
  const sent = ioCommands({ actions, transitions: [], carried: undefined }).filter(
    (command) => command.type !== "STOP_SAMPLE" && command.type !== "ABORT",
  );
  if (sent.length > 1) throw new Error(`one step sent ${sent.map((command) => command.type).join(", ")} to io`);
  return sent[0];
}

/**
 * What the model carries besides the snapshot. `pending`: the command the I/O actor is working on
 * — the last answerable command sent; an answer clears it; anything else (CANCEL in a writing
 * state, TOOL_STARTED, a TEXT_DELTA while sampling, the batch's events) leaves it. `shown`: the calls the batch of this step
 * has said wait for approval — it says so at most once per call.
 */
export interface RunCarry {
  readonly pending: RunCommand | null;
  readonly shown: ReadonlyArray<string>;
}

const batchEnded = (type: string) => type === "xstate.done.actor.toolBatch" || type === "xstate.error.actor.toolBatch";

export const RUN_CARRY: Carry<RunCarry> = {
  initial: (actions) => ({ pending: answerable(actions) ?? null, shown: [] }),
  next: (carried, event, actions) => ({
    pending: answerable(actions) ?? (REPLY_TYPES.has(event.type) ? null : carried.pending),
    shown:
      event.type === "APPROVAL_WAITING"
        ? [...carried.shown, (event as EventObject & { callId: string }).callId]
        : batchEnded(event.type)
          ? []
          : carried.shown,
  }),
  key: (carried) => `${carried.pending ? canonicalJson(carried.pending) : "-"}|${carried.shown.join(",")}`,
};

export const pendingOf = (snapshot: AnyMachineSnapshot) => carriedOf<RunCarry>(snapshot).pending;
const shownOf = (snapshot: AnyMachineSnapshot) => carriedOf<RunCarry>(snapshot).shown;

const reply = (event: RunReply): EventObject => event;
/** What the I/O actor tells whoever sent EXECUTE: here the run, which executes a step's one call alone. */
const callReport = (event: Extract<BatchReply, { type: "CALL_STARTED" | "CALL_SETTLED" }>): EventObject => event;

/** What the I/O actor may answer to `command`: every expected outcome, computed from the command. */
export function repliesTo(command: RunCommand): EventObject[] {
  const refused = reply({ type: "LEDGER_FAILED", detail: LEDGER_DOWN });
  switch (command.type) {
    case "OPEN":
      return [reply({ type: "OPENED", lastSequence: command.resumed ? command.after : 1 }), refused];
    case "SAMPLE":
      // A streamed piece of text comes before the answer and leaves the command pending.
      return [
        ...SAMPLE_CHOICES.map((choice) => reply({ type: "SAMPLED", outcome: choice.outcome(command.step) })),
        reply({ type: "TEXT_DELTA", step: command.step, delta: "Look" }),
      ];
    case "RECORD_CALLS":
      return [reply({ type: "CALLS_RECORDED", lastSequence: command.after + command.events.length }), refused];
    case "RECORD_TURN":
      return [reply({ type: "TURN_RECORDED", lastSequence: command.after + command.events.length }), refused];
    case "RECORD_RESULTS": {
      const receipts = command.settlements.map((settlement) => receiptOf(command.runId, settlement));
      const resultHashes = receipts.map((receipt) => receipt.evidence.output_sha256 as string);
      const lastSequence = command.after + command.settlements.length;
      return [reply({ type: "RESULTS_RECORDED", lastSequence, receipts, resultHashes }), refused];
    }
    case "VERIFY":
      return [
        ...VERDICTS.map((verdict) => reply({ type: "VERIFIED", verdict })),
        reply({ type: "VERIFY_FAILED", detail: ACTOR_CRASH }),
      ];
    case "FINISH":
      return [reply({ type: "FINISHED", receipts: closingReceiptsOf(command) }), refused];
    case "EXECUTE": {
      // A call the run executes alone (the batch's calls are not the run's commands): its start
      // (the command stays pending), and its result, ok or an error.
      const result = (status: "ok" | "error"): ExecutorResult => ({
        status,
        ...(status === "error" ? { reason: "tool_error" as const } : {}),
        output:
          status === "ok"
            ? { found: command.planned.call.arguments }
            : { error: `no entry for ${command.planned.call.id}` },
        evidence: {},
        startedAt: FIXED_TIME,
        finishedAt: FIXED_TIME,
      });
      return [
        callReport({ type: "CALL_STARTED", index: command.index, at: 0, startedAt: FIXED_TIME }),
        callReport({ type: "CALL_SETTLED", index: command.index, at: 0, result: result("ok") }),
        callReport({ type: "CALL_SETTLED", index: command.index, at: 0, result: result("error") }),
      ];
    }
    case "STOP_SAMPLE":
    case "ABORT":
    // Sent by the tool batch, not the run machine (the model does not hold them as pending).
    case "REQUEST_APPROVAL":
    case "APPROVAL_CLOSED":
      return [];
  }
}

/** The work region's state, or undefined (finalizing, a final state). */
export const workOf = (snapshot: AnyMachineSnapshot): string | undefined =>
  typeof snapshot.value === "object" ? (snapshot.value as { active?: { work?: string } }).active?.work : undefined;

/**
 * While the run executes its step's one call itself (in `executingTools`, without a batch):
 * `starting` until the call reports its start, `running` after.
 */
export const singleCallOf = (snapshot: AnyMachineSnapshot): "starting" | "running" | undefined => {
  if (workOf(snapshot) !== "executingTools") return undefined;
  const context = snapshot.context as RunContext;
  if (!runsAlone(context.stepCalls)) return undefined;
  return context.callStartedAt === null ? "starting" : "running";
};

/** The delayed event that times out a call the run executes itself. */
export const CALL_TIMEOUT_EVENT: EventObject = { type: "CALL_GIVEN_UP", status: "timed_out" } as EventObject;

/** Reports and ends of the other way of running a step's calls: never sent in a given step. */
const TOOL_STEP_EVENT_TYPES = [
  "CALL_STARTED",
  "CALL_SETTLED",
  "CALL_GIVEN_UP",
  "TOOL_STARTED",
  "xstate.done.actor.toolBatch",
  "xstate.error.actor.toolBatch",
];

/** Whether the cancellation region holds a CANCEL that came while work was in flight. */
export const cancelRequestedIn = (snapshot: AnyMachineSnapshot): boolean =>
  typeof snapshot.value === "object" &&
  (snapshot.value as { active?: { cancellation?: string } }).active?.cancellation === "requested";

/** The context the run machine invoked its tool batch with (the child's context), when it runs one. */
export const batchOf = (snapshot: AnyMachineSnapshot): ToolBatchContext | undefined =>
  invokedContext<ToolBatchContext>(snapshot, "toolBatch");

/**
 * The run machine's full event alphabet, as a function of the node: CANCEL; every answer the I/O
 * actor may give to the command it is working on; while the tool batch runs, a TOOL_STARTED for
 * each of its calls, its done event (the settlements of exactly the calls it was given, in call
 * order) and its crash.
 */
export function runEvents(snapshot: AnyMachineSnapshot): EventObject[] {
  const events: EventObject[] = [{ type: "CANCEL" }];
  const pending = pendingOf(snapshot);
  const single = singleCallOf(snapshot);
  // A call reports its start once: then only its result, its timeout or a CANCEL may follow.
  if (pending)
    events.push(...repliesTo(pending).filter((event) => !(single === "running" && event.type === "CALL_STARTED")));
  if (single === "running") events.push(CALL_TIMEOUT_EVENT);
  const batch = batchOf(snapshot);
  if (batch) {
    for (const { planned } of batch.calls) {
      events.push(
        reply({ type: "TOOL_STARTED", step: batch.step, callId: planned.call.id, toolName: planned.call.name }),
      );
    }
    const approving = batch.calls.some(({ planned }) => planned.approval);
    events.push(...approvalEvents(snapshot, batch));
    const statuses = [
      ...batchStatuses(cancelRequestedIn(snapshot)),
      ...(approving && !cancelRequestedIn(snapshot) ? (["denied", "expired"] as const) : []),
    ];
    // The batch tells the run that no call waits before it ends (its path test checks it).
    for (const status of approvalRegionOf(snapshot) === "awaitingApproval" ? [] : statuses) {
      events.push(
        doneActor(
          "toolBatch",
          batch.calls.map(({ planned }) => settlementOf(planned, status)),
        ),
      );
    }
    events.push(errorActor("toolBatch", new Error(ACTOR_CRASH)));
  }
  return events;
}

/**
 * Handled event types the model never sends in `snapshot`: the machine's own decisions (raised
 * from an answer, never sent), and LEDGER_FAILED while no ledger write is in flight (it is the
 * I/O actor's answer to a write; `active` handles it in every work state).
 */
export function runImpossible(snapshot: AnyMachineSnapshot): string[] {
  const pending = pendingOf(snapshot);
  const offered = new Set(runEvents(snapshot).map((event) => event.type));
  return [
    ...DECISION_TYPES,
    // Raised by the cancellation region when it takes a CANCEL, never sent.
    "CANCEL_REQUESTED",
    ...(pending && LEDGER_WRITES.includes(pending.type) ? [] : ["LEDGER_FAILED"]),
    // Only calls that wait for approval bring these, and only while the batch runs.
    ...APPROVAL_EVENT_TYPES.filter((type) => !offered.has(type)),
    // The batch says no call waits before it ends.
    ...(approvalRegionOf(snapshot) === "awaitingApproval" ? ["xstate.done.actor.toolBatch"] : []),
    // A step's calls run either in a batch or, one call, by the run itself: the other way's
    // reports cannot come (nor a second start, nor a timeout before the start).
    ...TOOL_STEP_EVENT_TYPES.filter((type) => !offered.has(type)),
  ];
}

export const runOptions = (input: RunInput): GraphOptions => ({
  input,
  events: runEvents,
  impossible: runImpossible,
  carry: RUN_CARRY as Carry<unknown>,
});

/** A short label of a run-model event, for test names and failure messages. */
export const describeEvent = (event: EventObject): string => {
  const short = event.type.replace("xstate.done.actor.", "done:").replace("xstate.error.actor.", "error:");
  const fields = event as EventObject & {
    outcome?: SampleOutcome;
    verdict?: Verdict;
    output?: ReadonlyArray<ToolSettlement>;
    receipts?: ReadonlyArray<ExecutionReceipt>;
  };
  if (event.type === "SAMPLED" && fields.outcome) {
    const outcome = fields.outcome;
    return outcome.type === "failure"
      ? `SAMPLED(${outcome.reason})`
      : `SAMPLED(${outcome.text ? "" : "empty,"}${outcome.finishReason}${outcome.calls.length ? `,${outcome.calls.length} call` : ""})`;
  }
  if (event.type === "xstate.done.actor.toolBatch" && fields.output) {
    return `${short}(${fields.output.map((settlement) => settlement.status).join(",")})`;
  }
  if (event.type === "VERIFIED" && fields.verdict) return `VERIFIED(${fields.verdict.verdict})`;
  if (event.type === "RESULTS_RECORDED" && fields.receipts) {
    return `RESULTS_RECORDED(${fields.receipts.map((receipt) => receipt.status).join(",")})`;
  }
  return short;
};

export const isFailureEvent = (event: EventObject) =>
  event.type === "LEDGER_FAILED" || event.type === "VERIFY_FAILED" || event.type.startsWith("xstate.error.actor.");

// --- A model of the ledger's rules (the SQLite triggers of 0002_run_ledger.ts) ---------------------

export interface LedgerRow {
  readonly sequence: number;
  readonly type: string;
  readonly payload: unknown;
}

const callIdOf = (row: LedgerRow) => (row.payload as { callId?: string }).callId;

/**
 * Why the ledger would refuse appending `rows` (+ receipts for `receiptCallIds`) to `existing`, or
 * null. Mirrors the triggers: sequences continue without gaps, nothing after the terminal event,
 * one tool_call per call id, a tool_result only after its tool_call and only once, a receipt only
 * for a recorded call and only once.
 */
export function ledgerRefusal(
  existing: ReadonlyArray<LedgerRow>,
  existingReceipts: ReadonlyArray<string>,
  rows: ReadonlyArray<LedgerRow>,
  receiptCallIds: ReadonlyArray<string>,
): string | null {
  const all = [...existing];
  for (const row of rows) {
    const last = all[all.length - 1];
    if (row.sequence !== (last?.sequence ?? 0) + 1)
      return `sequence_gap (row ${row.sequence} after ${last?.sequence ?? 0})`;
    if (last?.type === "terminal") return "event_after_terminal";
    const id = callIdOf(row);
    const calls = all.filter((r) => r.type === "tool_call" && callIdOf(r) === id);
    if (row.type === "tool_call" && calls.length > 0) return `duplicate_tool_call (${id})`;
    if (row.type === "tool_result" && calls.length === 0) return `orphan_tool_result (${id})`;
    if (row.type === "tool_result" && all.some((r) => r.type === "tool_result" && callIdOf(r) === id)) {
      return `duplicate_tool_result (${id})`;
    }
    all.push(row);
  }
  const receipts = [...existingReceipts];
  for (const id of receiptCallIds) {
    if (receipts.includes(id)) return `duplicate_receipt (${id})`;
    if (!all.some((r) => r.type === "tool_call" && callIdOf(r) === id)) return `receipt_without_call (${id})`;
    receipts.push(id);
  }
  return null;
}

/** What is wrong with a closed run's ledger: one terminal event, last; 1..n; pairing; receipts. */
export function closedLedgerViolations(
  rows: ReadonlyArray<LedgerRow>,
  receiptCallIds: ReadonlyArray<string>,
): string[] {
  const violations: string[] = [];
  const terminals = rows.filter((row) => row.type === "terminal");
  if (terminals.length !== 1) violations.push(`${terminals.length} terminal events`);
  if (rows[rows.length - 1]?.type !== "terminal") violations.push("the last event is not the terminal event");
  rows.forEach((row, index) => {
    if (row.sequence !== index + 1) violations.push(`event ${index + 1} has sequence ${row.sequence}`);
  });
  rows.forEach((row, index) => {
    if (row.type !== "tool_result") return;
    const call = rows.findIndex((r) => r.type === "tool_call" && callIdOf(r) === callIdOf(row));
    if (call < 0 || call > index) violations.push(`tool_result ${callIdOf(row)} before its tool_call`);
  });
  for (const row of rows.filter((r) => r.type === "tool_call")) {
    const count = receiptCallIds.filter((id) => id === callIdOf(row)).length;
    if (count !== 1) violations.push(`tool_call ${callIdOf(row)} has ${count} receipts`);
  }
  return violations;
}

export interface ModelLedger {
  readonly rows: ReadonlyArray<LedgerRow>;
  readonly receipts: ReadonlyArray<string>;
}

/**
 * The rows and receipt call ids a ledger write asks for, numbered after the sequence the command
 * carries (as the command handlers number them): a machine that lost count writes a gap or a
 * duplicate, which the model ledger refuses as the real one does.
 */
function requestedWrite(command: RunCommand, ledger: ModelLedger): ModelLedger | undefined {
  let sequence = "after" in command ? command.after : (ledger.rows[ledger.rows.length - 1]?.sequence ?? 0);
  const row = (type: string, payload: unknown): LedgerRow => ({ sequence: ++sequence, type, payload });
  const rowsOf = (events: ReadonlyArray<PendingEvent>) => events.map((event) => row(event.type, event.payload));
  switch (command.type) {
    case "OPEN":
      return command.resumed
        ? { rows: [], receipts: [] }
        : { rows: [row("user_input", { text: command.input, origin: "user" })], receipts: [] };
    case "RECORD_CALLS":
    case "RECORD_TURN":
      return { rows: rowsOf(command.events), receipts: [] };
    case "RECORD_RESULTS":
      return {
        rows: command.settlements.map((settlement) => row("tool_result", { callId: settlement.callId })),
        receipts: command.settlements.map((settlement) => settlement.callId),
      };
    case "FINISH": {
      const leading = rowsOf(command.events);
      const unsettled = command.unsettled.map((planned) => row("tool_result", { callId: planned.call.id }));
      return {
        rows: [...leading, ...unsettled, row("terminal", command.terminal)],
        receipts: command.unsettled.map((planned) => planned.call.id),
      };
    }
    default:
      return undefined;
  }
}

/**
 * What the ledger write `command` leaves when it succeeds, as the command handlers write it: the
 * requested rows, or — for a terminal write after a ledger failure that the ledger refuses —
 * the FINISH handler's fallback (receipts for the step's calls whose tool_call row is durable and that
 * have none, then the terminal event). `refused` names the ledger rule a write breaks; undefined:
 * the command writes nothing.
 */
export function ledgerWrite(
  command: RunCommand,
  ledger: ModelLedger,
): { ledger: ModelLedger; refused?: undefined } | { refused: string } | undefined {
  const write = requestedWrite(command, ledger);
  if (!write) return undefined;
  const append = (next: ModelLedger) => ({
    ledger: { rows: [...ledger.rows, ...next.rows], receipts: [...ledger.receipts, ...next.receipts] },
  });
  const refusal = ledgerRefusal(ledger.rows, ledger.receipts, write.rows, write.receipts);
  if (!refusal) return append(write);
  if (command.type !== "FINISH" || command.terminal.reason !== "ledger_write_failed") return { refused: refusal };
  const called = new Set(ledger.rows.filter((row) => row.type === "tool_call").map(callIdOf));
  const fallback: ModelLedger = {
    rows: [
      {
        sequence: (ledger.rows[ledger.rows.length - 1]?.sequence ?? 0) + 1,
        type: "terminal",
        payload: command.terminal,
      },
    ],
    receipts: command.unsettled
      .map((planned) => planned.call.id)
      .filter((id) => called.has(id) && !ledger.receipts.includes(id)),
  };
  const fallbackRefusal = ledgerRefusal(ledger.rows, ledger.receipts, fallback.rows, fallback.receipts);
  return fallbackRefusal ? { refused: `${refusal}, then ${fallbackRefusal}` } : append(fallback);
}

/** The replies that report a ledger write done (the write the pending command asked for is durable). */
export const WRITE_DONE: ReadonlySet<string> = new Set([
  "OPENED",
  "CALLS_RECORDED",
  "TURN_RECORDED",
  "RESULTS_RECORDED",
  "FINISHED",
]);
