import type {
  CallFingerprint,
  CompletionContract,
  ContextMessage,
  ExecutionReceipt,
  Locale,
  Outcome,
  PendingEvent,
  PlannedCall,
  ProviderCapabilities,
  ReceiptVerificationMode,
  ToolKind,
  Verdict,
} from "../../domain/index.js";
import type { SamplingPhase } from "../toolChoice.js";

export interface RunInput {
  readonly runId: string;
  readonly traceId: string;
  readonly sessionId: string;
  readonly input: string;
  readonly contract: CompletionContract;
  readonly toolKinds: Readonly<Record<string, ToolKind>>;
  readonly maxSteps: number;
  readonly doomLoopThreshold: number;
  readonly maxProtocolRepairs: number;
  readonly toolConcurrency: number;
  readonly locale: Locale;
  readonly capabilities: ProviderCapabilities;
  /** Rollout switch (seed §3.3): `observe` records the verdict but reports as `off` would. */
  readonly receiptVerification: ReceiptVerificationMode;
}

/** At most one correction turn per run (seed §4 Phase 3). */
export const MAX_CORRECTION_TURNS = 1;

/** Ledger rows and the transcript messages that go with them. */
export interface Rows {
  readonly events: ReadonlyArray<PendingEvent>;
  readonly transcript: ReadonlyArray<ContextMessage>;
}

export const NO_ROWS: Rows = { events: [], transcript: [] };

export interface RunContext extends RunInput {
  readonly step: number;
  readonly receipts: ReadonlyArray<ExecutionReceipt>;
  readonly callLog: ReadonlyArray<CallFingerprint>;
  readonly protocolRepairs: number;
  readonly correctionTurns: number;
  /** The current tool step: its calls, commentary and the adapter's anomalies. */
  readonly stepCalls: ReadonlyArray<PlannedCall>;
  readonly stepText: string;
  readonly stepAnomalies: ReadonlyArray<PendingEvent>;
  /** Whether the current step's tool_call rows are durable (only those calls can get closing receipts). */
  readonly callsRecorded: boolean;
  /** Rows of a protocol repair or correction turn, written before sampling again. */
  readonly turn: Rows;
  /** Rows that land with the terminal event. */
  readonly closing: Rows;
  readonly answer: string;
  readonly samplingPhase: SamplingPhase;
  readonly verdict: Verdict | null;
  readonly outcome: Outcome | null;
}

export const initialContext = (input: RunInput): RunContext => ({
  ...input,
  step: 0,
  receipts: [],
  callLog: [],
  protocolRepairs: 0,
  correctionTurns: 0,
  stepCalls: [],
  stepText: "",
  stepAnomalies: [],
  callsRecorded: false,
  turn: NO_ROWS,
  closing: NO_ROWS,
  answer: "",
  samplingPhase: "first",
  verdict: null,
  outcome: null,
});
