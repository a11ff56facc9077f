import type {
  CanonicalEventType,
  CompletionContract,
  ContextMessage,
  ExecutionReceipt,
  FinishReason,
  JsonValue,
  MalformedToolCall,
  PlannedCall,
  ProviderAnomaly,
  ReasonCode,
  TerminalPayload,
  TerminalState,
  TokenUsage,
  ToolChoice,
  ToolKind,
  ToolSettlement,
} from "../domain/index.js";

/**
 * The messages between the pure machines and the actors the runtime provides. Everything here
 * is plain data: the machines decide, the actors do the I/O.
 */

/** A ledger row the machine has decided on; the writing actor assigns sequence numbers. */
export interface PendingEvent {
  readonly type: CanonicalEventType;
  readonly payload: JsonValue;
}

export interface OpenRunInput {
  readonly runId: string;
  readonly sessionId: string;
  readonly traceId: string;
  readonly contract: CompletionContract;
  readonly input: string;
}

export interface SampleInput {
  readonly runId: string;
  readonly step: number;
  readonly toolChoice: ToolChoice;
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
      readonly usage?: TokenUsage;
    }
  | { readonly type: "failure"; readonly reason: "provider_error" | "script_exhausted"; readonly message: string };

/** Rows (and transcript messages) to make durable before the run moves on. */
export interface LedgerWriteInput {
  readonly runId: string;
  readonly firstSequence: number;
  readonly events: ReadonlyArray<PendingEvent>;
  readonly transcript: ReadonlyArray<ContextMessage>;
}

export interface LedgerWriteOutput {
  readonly lastSequence: number;
}

export interface ToolResultsInput {
  readonly runId: string;
  readonly step: number;
  readonly firstSequence: number;
  readonly settlements: ReadonlyArray<ToolSettlement>;
}

export interface ToolResultsOutput {
  readonly lastSequence: number;
  readonly receipts: ReadonlyArray<ExecutionReceipt>;
  /** sha256 of each result's output, in call order (for the no-progress detector). */
  readonly resultHashes: ReadonlyArray<string>;
}

export type ReceiptVerificationMode = "off" | "observe" | "enforce";

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
  /** With `correct`: the runtime-owned correction message, naming the missing evidence. */
  readonly correction?: string;
}

export interface FinishRunOutput extends LedgerWriteOutput {
  /** Receipts written while closing (calls the run ended before they reported). */
  readonly receipts: ReadonlyArray<ExecutionReceipt>;
}

export interface FinishRunInput {
  readonly runId: string;
  readonly firstSequence: number;
  /** Rows that land with the terminal event, before it. */
  readonly events: ReadonlyArray<PendingEvent>;
  /** Calls of the current step that never settled: they get `cancelled` results and receipts. */
  readonly unsettled: ReadonlyArray<PlannedCall>;
  readonly terminal: TerminalPayload;
  readonly detail: string | null;
  readonly transcript: ReadonlyArray<ContextMessage>;
}

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
