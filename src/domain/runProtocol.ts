import type { ApprovalRequest, HostApprovalDecision } from "./approval.js";
import type { ContextMessage } from "./context.js";
import type { CompletionContract } from "./contract.js";
import type { CanonicalEventType, ClaimScope, RecordedClaim, TerminalPayload } from "./events.js";
import type { JsonValue } from "./json.js";
import type { FinishReason, MalformedToolCall, ProviderAnomaly, TokenUsage, ToolChoice } from "./provider.js";
import type { ExecutionReceipt } from "./receipt.js";
import type { ReasonCode, TerminalState } from "./terminal.js";
import type { ExecutorResult, PlannedCall, ToolKind, ToolSettlement } from "./tool.js";

/**
 * What the pure run machines and the runtime's I/O say to each other. The machines decide and send
 * commands; one I/O actor per run performs them and answers with named events. Plain data only.
 */

/** A ledger row the machine has decided on; the writer assigns its sequence number. */
export interface PendingEvent {
  readonly type: CanonicalEventType;
  readonly payload: JsonValue;
}

export type ReceiptVerificationMode = "off" | "observe" | "enforce";

export interface Outcome {
  readonly state: TerminalState;
  readonly reason: ReasonCode;
  readonly detail: string | null;
}

/** One entry per settled call, for doom-loop detection. */
export interface CallFingerprint {
  readonly toolName: string;
  readonly inputFingerprint: string;
  readonly resultHash: string;
}

export type SampleOutcome =
  | {
      readonly type: "response";
      readonly text: string;
      readonly finishReason: FinishReason;
      readonly calls: ReadonlyArray<PlannedCall>;
      readonly malformed: ReadonlyArray<MalformedToolCall>;
      readonly anomalies: ReadonlyArray<ProviderAnomaly>;
      readonly streamed: boolean;
      /** Tokens the provider reported for this call (for spans; the machine does not read it). */
      readonly usage?: TokenUsage | undefined;
    }
  | {
      readonly type: "failure";
      readonly reason: "provider_error" | "provider_tool_protocol_invalid" | "script_exhausted";
      readonly message: string;
    };

export type SampleResponse = Extract<SampleOutcome, { type: "response" }>;

export interface VerifyInput {
  readonly runId: string;
  readonly contract: CompletionContract;
  readonly receipts: ReadonlyArray<ExecutionReceipt>;
  readonly answer: string;
  readonly toolKinds: Readonly<Record<string, ToolKind>>;
  readonly correctionTurns: number;
}

export interface Verdict {
  /** `correct`: ask the model once more (at most one correction turn per run). */
  readonly verdict: "completed" | "unverified" | "correct";
  readonly reason: ReasonCode;
  readonly missing: ReadonlyArray<string>;
  /** The answer's claims that no receipt backs. */
  readonly claims?: ReadonlyArray<RecordedClaim> | undefined;
  /** Set when the answer was too long to read whole for claims: the part that was read. */
  readonly claimScope?: ClaimScope | undefined;
  /** With `correct`: the runtime-owned correction message, naming the missing evidence. */
  readonly correction?: string | undefined;
}

/**
 * What the ledger says of a run that was interrupted: its step, its receipts and call log, its
 * correction and repair counts, the last durable row, and the calls of its last step whose
 * tool_call rows are durable but that never reported and may run now (never started, or
 * uncertain but observe or idempotent). Calls that may not were given `cancelled` receipts
 * (`side_effect_unknown`) before the run resumed.
 */
export interface ResumePoint {
  readonly step: number;
  readonly lastSequence: number;
  readonly receipts: ReadonlyArray<ExecutionReceipt>;
  readonly callLog: ReadonlyArray<CallFingerprint>;
  readonly protocolRepairs: number;
  readonly correctionTurns: number;
  readonly rerun: ReadonlyArray<PlannedCall>;
}

/**
 * Rows are numbered from the last durable one, which the run machine keeps: each write command
 * carries it (`after`) and each write's answer brings the new one back (`lastSequence`), so the
 * numbering is data the machine owns rather than state hidden in the I/O.
 */
export interface AfterSequence {
  readonly after: number;
}

export interface OpenRunInput {
  readonly runId: string;
  readonly sessionId: string;
  readonly traceId: string;
  readonly contract: CompletionContract;
  readonly input: string;
  /** A run resumed from its ledger: its rows exist, opening writes none. */
  readonly resumed?: boolean;
}

/** Rows (and transcript messages) to make durable before the run moves on. */
export interface LedgerWriteInput {
  readonly runId: string;
  readonly events: ReadonlyArray<PendingEvent>;
  readonly transcript: ReadonlyArray<ContextMessage>;
}

export interface ToolResultsInput {
  readonly runId: string;
  readonly step: number;
  readonly settlements: ReadonlyArray<ToolSettlement>;
}

export interface FinishRunInput {
  readonly runId: string;
  /** Rows that land with the terminal event, before it. */
  readonly events: ReadonlyArray<PendingEvent>;
  /** Calls of the current step that never settled: they get `cancelled` results and receipts. */
  readonly unsettled: ReadonlyArray<PlannedCall>;
  readonly terminal: TerminalPayload;
  readonly detail: string | null;
  readonly transcript: ReadonlyArray<ContextMessage>;
}

/** Whatever can take an event: the batch hands the I/O actor itself, so settlements come straight back. */
export interface EventSink<E> {
  send(event: E): void;
}

/** What the run machine (and its tool batch) ask the I/O actor to do. */
export type RunCommand =
  | ({ readonly type: "OPEN" } & OpenRunInput & AfterSequence)
  | { readonly type: "SAMPLE"; readonly step: number; readonly toolChoice: ToolChoice }
  /** Leaving `sampling` before the answer came: interrupt the provider call. */
  | { readonly type: "STOP_SAMPLE" }
  | ({
      readonly type: "RECORD_CALLS";
      /**
       * The step's one call starts next (it runs alone): its rows may wait and land in one
       * transaction with that call's start record — or, if it never starts, with the step's results
       * or the run's end. A process that dies before then leaves a ledger that resumes by sampling
       * again. Without it the rows are made durable before the answer.
       */
      readonly withStart?: true;
    } & LedgerWriteInput &
      AfterSequence)
  | ({ readonly type: "RECORD_TURN" } & LedgerWriteInput & AfterSequence)
  | ({ readonly type: "RECORD_RESULTS" } & ToolResultsInput & AfterSequence)
  | ({ readonly type: "VERIFY" } & VerifyInput)
  | ({ readonly type: "FINISH" } & FinishRunInput & AfterSequence)
  | {
      readonly type: "EXECUTE";
      readonly runId: string;
      readonly step: number;
      readonly index: number;
      readonly planned: PlannedCall;
      readonly replyTo: EventSink<BatchReply>;
    }
  | { readonly type: "ABORT"; readonly callId: string }
  /**
   * A call waits for approval: make its request durable, then tell the batch that asked; from
   * then on its decision goes to that batch.
   */
  | ({
      readonly type: "REQUEST_APPROVAL";
      readonly timeoutMs: number;
      readonly replyTo: EventSink<BatchReply | ApprovalDecided>;
    } & ApprovalRequest)
  /** The call's wait ended, whoever ended it: stop looking for its decision. Nothing answers. */
  | { readonly type: "APPROVAL_CLOSED"; readonly callId: string };

/** The I/O actor's answers to the run machine. Expected failures are answers too. */
export type RunReply =
  | { readonly type: "OPENED"; readonly lastSequence: number }
  | { readonly type: "SAMPLED"; readonly outcome: SampleOutcome }
  | { readonly type: "CALLS_RECORDED"; readonly lastSequence: number }
  | { readonly type: "TURN_RECORDED"; readonly lastSequence: number }
  | {
      readonly type: "RESULTS_RECORDED";
      readonly lastSequence: number;
      readonly receipts: ReadonlyArray<ExecutionReceipt>;
      /** sha256 of each result's output, in call order (for the no-progress detector). */
      readonly resultHashes: ReadonlyArray<string>;
      /** Each result's output as the ledger holds it (redacted, capped), in call order, for the host. */
      readonly outputs?: ReadonlyArray<JsonValue> | undefined;
    }
  | { readonly type: "VERIFIED"; readonly verdict: Verdict }
  /** `receipts`: those written while closing (calls the run ended before they reported). */
  | { readonly type: "FINISHED"; readonly receipts: ReadonlyArray<ExecutionReceipt> }
  | { readonly type: "LEDGER_FAILED"; readonly detail: string }
  /** The verifier itself broke (a defect, not a verdict). */
  | { readonly type: "VERIFY_FAILED"; readonly detail: string }
  /** A call of a tool batch started (its start record is durable): told by the batch, shown by the run. */
  | { readonly type: "TOOL_STARTED"; readonly step: number; readonly callId: string; readonly toolName: string }
  /** A piece of the step's text as the provider streams it (shown to the host, decided on by no one). */
  | { readonly type: "TEXT_DELTA"; readonly step: number; readonly delta: string };

/** A decision on a waiting call, from the host or (through the ledger) another process: it goes to the call's batch. */
export interface ApprovalDecided {
  readonly type: "APPROVAL_DECIDED";
  readonly callId: string;
  readonly decision: HostApprovalDecision;
}

/**
 * What the tool batch tells the run about approvals: only what the run shows its host — a call
 * whose request is durable now waits (announce it), and no call waits any more.
 */
export type ApprovalNotice =
  | ({ readonly type: "APPROVAL_WAITING" } & ApprovalRequest)
  | { readonly type: "NO_APPROVAL_WAITING" };

/** The I/O actor's answers to a tool batch. `at`: the actor's clock in ms, for the batch's one timer. */
export type BatchReply =
  | { readonly type: "CALL_STARTED"; readonly index: number; readonly at: number; readonly startedAt: string }
  | { readonly type: "CALL_SETTLED"; readonly index: number; readonly at: number; readonly result: ExecutorResult }
  /** The call's approval request is durable: the host may decide now. */
  | ({ readonly type: "APPROVAL_REQUESTED" } & ApprovalRequest);
