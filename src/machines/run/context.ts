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
  ResumePoint,
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
  /** Rollout switch: `observe` records the verdict but reports as `off` would. */
  readonly receiptVerification: ReceiptVerificationMode;
  /** A run continued from its ledger after its process stopped: where it stood. */
  readonly resume?: ResumePoint | undefined;
}

/** At most one correction turn per run. */
export const MAX_CORRECTION_TURNS = 1;

/** Ledger rows and the transcript messages that go with them. */
export interface Rows {
  readonly events: ReadonlyArray<PendingEvent>;
  readonly transcript: ReadonlyArray<ContextMessage>;
}

export const NO_ROWS: Rows = { events: [], transcript: [] };

export interface RunContext extends RunInput {
  readonly step: number;
  /** A CANCEL came (the `cancellation` region took it): work in flight ends the run when it reports. */
  readonly cancelRequested: boolean;
  /** The run's last durable ledger row: write commands number their rows after it. */
  readonly lastSequence: number;
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
  /**
   * When the step's one call, run without a batch, reported its start (its timeout counts from
   * then); null until it does, and again once the step's results are durable.
   */
  readonly callStartedAt: string | null;
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
  step: input.resume?.step ?? 0,
  lastSequence: input.resume?.lastSequence ?? 0,
  cancelRequested: false,
  receipts: input.resume?.receipts ?? [],
  callLog: input.resume?.callLog ?? [],
  protocolRepairs: input.resume?.protocolRepairs ?? 0,
  correctionTurns: input.resume?.correctionTurns ?? 0,
  stepCalls: input.resume?.rerun ?? [],
  stepText: "",
  stepAnomalies: [],
  // The calls to run again are durable already: they are what the resumed run does first.
  callsRecorded: (input.resume?.rerun.length ?? 0) > 0,
  callStartedAt: null,
  turn: NO_ROWS,
  closing: NO_ROWS,
  answer: "",
  samplingPhase: input.resume ? "continue" : "first",
  verdict: null,
  outcome: null,
});
