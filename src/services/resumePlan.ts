import type {
  ApprovalRecord,
  CallFingerprint,
  ContextMessage,
  ExecutionReceipt,
  JsonValue,
  LedgerEvent,
  PlannedCall,
  ResumePoint,
} from "../domain/index.js";
import type { EventToAppend, RunLedgerRecord, ToolStartRecord } from "../persistence/AgentRunStore.js";
import { canonicalJson, inputFingerprint, sha256 } from "./tools/fingerprint.js";
import { type AnyToolDefinition, mayRepeat } from "./tools/Tool.js";
import { projectRuns } from "./transcriptProjector.js";

/**
 * How an interrupted run continues from its ledger, decided from the rows alone: pure.
 *
 * The run machine is rebuilt from the events — its step, receipts, call log, correction and
 * repair counts, and the transcript the model saw (tool facts, not narration). A call whose
 * tool_call row is durable but that has no receipt either never started (no start record: it
 * runs now, after its approval if it asked for one — a decision made while nobody drove the run
 * applies here) or is *uncertain* (a start record: the process may have run it). An uncertain
 * call runs again only when its tool is idempotent or only observes; any other gets a `cancelled`
 * receipt with `side_effect_unknown: true, started: true` and a tool result telling the model
 * honestly that its outcome is unknown — written before the run resumes, so a second resume finds
 * it settled.
 */

export interface ResumePlan {
  readonly input: string;
  /** The system prompt the run was queued with (`false`: none); undefined when it was not queued with one. */
  readonly system: string | false | undefined;
  /** Where the run machine starts again. */
  readonly point: ResumePoint;
  /** Rows for the uncertain calls that may not run again: tool_result events and their receipts. */
  readonly settle: {
    readonly events: ReadonlyArray<EventToAppend>;
    readonly receipts: ReadonlyArray<ExecutionReceipt>;
  };
  /** The transcript to continue with (the re-run calls' results follow when they report). */
  readonly transcript: ReadonlyArray<ContextMessage>;
}

export const UNKNOWN_OUTCOME_TEXT =
  "The run was interrupted while this call was in flight, and it was not run again because it may change things: whether it took effect is unknown. Check the current state before repeating it, and do not say it was done.";

type Payload = Record<string, JsonValue>;
const payloadOf = (event: LedgerEvent): Payload =>
  event.payload && typeof event.payload === "object" && !Array.isArray(event.payload) ? (event.payload as Payload) : {};
const textOf = (value: JsonValue | undefined) => (typeof value === "string" ? value : "");

export interface ResumeOptions {
  readonly tools: ReadonlyMap<string, AnyToolDefinition>;
  readonly defaultToolTimeoutMs: number;
  readonly now: string;
  /**
   * The run's approvals. A call that was waiting for approval — or was denied — never
   * started: it waits again (for what is left of its time; a decision already in the ledger
   * reaches it at once), whatever its tool.
   */
  readonly approvals?: ReadonlyArray<ApprovalRecord> | undefined;
  /** The run's start records: a call has one exactly when its executor was about to be invoked. */
  readonly starts: ReadonlyArray<ToolStartRecord>;
}

export function planResume(ledger: RunLedgerRecord, options: ResumeOptions): ResumePlan {
  const { run, events, receipts } = ledger;
  const receipted = new Set(receipts.map((receipt) => receipt.callId));
  let input = "";
  let system: string | false | undefined;
  let step = 0;
  let correctionTurns = 0;
  let protocolRepairs = 0;
  const uncertain: Array<{ callId: string; toolName: string; args: JsonValue; step: number; at: string }> = [];
  for (const event of events) {
    const payload = payloadOf(event);
    if (typeof payload.step === "number") step = Math.max(step, payload.step);
    if (event.type === "user_input") {
      if (payload.origin === "runtime_correction") correctionTurns += 1;
      else if (!input) {
        input = textOf(payload.text);
        if (typeof payload.system === "string") system = payload.system;
        else if (payload.system === null) system = false;
      }
    }
    if (event.type === "provider_anomaly" && payload.code === "tool_finish_without_parsed_calls") protocolRepairs += 1;
    if (event.type === "tool_call" && !receipted.has(textOf(payload.callId))) {
      uncertain.push({
        callId: textOf(payload.callId),
        toolName: textOf(payload.toolName),
        args: payload.arguments ?? {},
        step: Number(payload.step ?? step),
        at: event.createdAt,
      });
    }
  }
  const lastSequence = events.at(-1)?.sequence ?? 0;

  const nowMs = Date.parse(options.now);
  const requests = new Map((options.approvals ?? []).map((record) => [record.callId, record]));
  const startedAt = new Map<string, string>();
  for (const start of options.starts) if (!startedAt.has(start.callId)) startedAt.set(start.callId, start.startedAt);
  const runnable = (toolName: string) => options.tools.get(toolName)?.execute !== undefined;
  const mayRunAgain = (toolName: string) => {
    const tool = options.tools.get(toolName);
    return tool !== undefined && runnable(toolName) && mayRepeat(tool);
  };
  // A call without a start record never started: it runs (after its approval, if it asked for
  // one), whatever its tool. One with a start record and no receipt may have run: only a tool that
  // observes or is idempotent runs it again.
  const resumable = (call: { callId: string; toolName: string }) =>
    startedAt.has(call.callId) ? mayRunAgain(call.toolName) : runnable(call.toolName);
  const rerun: PlannedCall[] = uncertain.filter(resumable).map((call) => {
    const request = startedAt.has(call.callId) ? undefined : requests.get(call.callId);
    // A decision already in the ledger reaches the call at its first look: its wait keeps its
    // whole time. An undecided one waits for what is left.
    const left = request
      ? request.decision
        ? request.timeoutMs
        : request.timeoutMs - (nowMs - Date.parse(request.requestedAt))
      : 0;
    return {
      call: { id: call.callId, name: call.toolName, arguments: call.args as Record<string, JsonValue> },
      disposition: "run",
      inputFingerprint: inputFingerprint(call.toolName, call.args),
      timeoutMs: options.tools.get(call.toolName)?.timeoutMs ?? options.defaultToolTimeoutMs,
      ...(request ? { approval: { reason: request.reason, timeoutMs: Math.max(1, Math.floor(left)) } } : {}),
    };
  });
  const unknown = uncertain.filter((call) => !resumable(call));
  const output = { error: UNKNOWN_OUTCOME_TEXT };
  const outputJson = canonicalJson(output);
  const settleReceipts: ExecutionReceipt[] = unknown.map((call) => ({
    receiptId: `${run.runId}:${call.callId}`,
    runId: run.runId,
    callId: call.callId,
    toolName: call.toolName,
    status: "cancelled",
    reason: "interrupted",
    startedAt: startedAt.get(call.callId) ?? call.at,
    finishedAt: options.now,
    inputFingerprint: inputFingerprint(call.toolName, call.args),
    evidence: {
      side_effect_unknown: true,
      started: true,
      output_sha256: sha256(outputJson),
      output_bytes: Buffer.byteLength(outputJson),
    },
    verificationStatus: "unverified",
  }));
  const settleEvents: EventToAppend[] = unknown.map((call, index) => ({
    sequence: lastSequence + 1 + index,
    type: "tool_result",
    payload: {
      step: call.step,
      callId: call.callId,
      toolName: call.toolName,
      status: "cancelled",
      output,
      outputHash: sha256(outputJson),
      sideEffectUnknown: true,
    },
  }));

  const allReceipts = [...receipts, ...settleReceipts];
  const resultHashes = new Map(
    [...events, ...settleEvents.map((event) => ({ ...event, runId: run.runId, createdAt: options.now }))]
      .filter((event) => event.type === "tool_result")
      .map((event) => [
        textOf(payloadOf(event as LedgerEvent).callId),
        textOf(payloadOf(event as LedgerEvent).outputHash),
      ]),
  );
  const callLog: CallFingerprint[] = allReceipts.map((receipt) => ({
    toolName: receipt.toolName,
    inputFingerprint: receipt.inputFingerprint,
    resultHash: resultHashes.get(receipt.callId) ?? "",
  }));
  const settledLedger = {
    run,
    events: [
      ...events,
      ...settleEvents.map((event): LedgerEvent => ({ ...event, runId: run.runId, createdAt: options.now })),
    ],
    receipts: allReceipts,
  };
  return {
    input,
    system,
    point: {
      lastSequence: lastSequence + settleEvents.length,
      step,
      receipts: allReceipts,
      callLog,
      protocolRepairs,
      correctionTurns,
      rerun,
    },
    settle: { events: settleEvents, receipts: settleReceipts },
    transcript: projectRuns([settledLedger], () => "protocol", {
      pending: new Set(rerun.map((planned) => planned.call.id)),
    }),
  };
}
