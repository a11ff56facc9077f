import * as Context from "effect/Context";
import * as Data from "effect/Data";
import type * as Effect from "effect/Effect";
import type {
  CanonicalEventType,
  CompletionContract,
  ExecutionReceipt,
  JsonValue,
  LedgerEvent,
  RunRecord,
  TerminalPayload,
} from "../domain/index.js";
import type { ToolProcessEnd, ToolProcessRecord } from "./toolProcesses.js";

/** Every way the ledger refuses a write; the SQLite triggers raise the same names. */
export const LEDGER_REFUSALS = [
  "unknown_run",
  "duplicate_run",
  "run_not_running",
  "duplicate_sequence",
  "sequence_gap",
  "event_after_terminal",
  "missing_call_id",
  "duplicate_tool_call",
  "orphan_tool_result",
  "duplicate_tool_result",
  "duplicate_receipt",
  "receipt_without_call",
  "append_only",
  "run_must_start_running",
  "run_already_terminal",
  "run_update_not_terminal",
  "run_identity_immutable",
  "run_closed_without_terminal_event",
  "stale_lease",
  "approval_without_call",
  "decision_without_request",
  "already_decided",
  "call_already_settled",
  "already_started",
  "start_without_call",
  "start_without_approval",
  "lease_expired",
  "completed_without_evidence",
] as const;
export type LedgerRefusal = (typeof LEDGER_REFUSALS)[number];

export class LedgerError extends Data.TaggedError("LedgerError")<{
  readonly reason: LedgerRefusal | "invalid_payload" | "storage_failure";
  readonly message: string;
  readonly cause?: unknown;
}> {}

export interface NewRun {
  readonly runId: string;
  readonly sessionId: string;
  readonly traceId: string;
  readonly contract: CompletionContract;
  readonly workspaceId?: string | null;
  readonly providerId?: string | null;
  readonly model?: string | null;
  readonly apiFamily?: string | null;
  readonly startedAt?: string;
  /** The receipt-verification rollout mode the run is driven with; `enforce` unless said otherwise. */
  readonly verificationMode?: "off" | "observe" | "enforce";
  /** The named agent the run is built from (`AgentRuntimeConfig.agents`), so any replica can drive it. */
  readonly agentName?: string | null;
  /**
   * The run waits for a worker: it is written with a place in the run queue and without an
   * owner or a lease (the worker that picks it up takes the lease).
   */
  readonly queued?: boolean;
}

/** A run `enqueueRun` wrote that no worker has taken yet. */
export interface QueuedRun {
  readonly runId: string;
  readonly agentName: string;
  readonly enqueuedAt: string;
}

/** A call about to be invoked. */
export interface ToolStart {
  readonly callId: string;
  readonly toolName: string;
  /** The tool only observes or is idempotent: a later attempt after an unknown outcome is allowed. */
  readonly mayRepeat: boolean;
  readonly startedAt: string;
}

/** A durable start of a call. */
export interface ToolStartRecord {
  readonly callId: string;
  readonly attempt: number;
  readonly startedAt: string;
}

export interface EventToAppend {
  readonly sequence: number;
  readonly type: CanonicalEventType;
  readonly payload: JsonValue;
}

export interface RunClosure {
  readonly sequence: number;
  readonly terminal: TerminalPayload;
  readonly failureDetail?: string | null;
  /** Rows that must land with the terminal event (e.g. cancelled receipts of in-flight calls). */
  readonly events?: ReadonlyArray<EventToAppend>;
  readonly receipts?: ReadonlyArray<ExecutionReceipt>;
}

/** How a run nobody drives any more is closed: its terminal, and the receipts of its open calls. */
export interface RunClosing {
  readonly terminal: TerminalPayload;
  readonly detail: string;
  readonly receiptReason: "interrupted" | "cancelled_by_user";
  /** The note on the receipt of a call that never started. */
  readonly neverStarted: string;
  /** The note on the receipt of a call that started and never reported. */
  readonly outcomeUnknown: string;
}

export interface RecoveredRun {
  readonly runId: string;
  readonly sessionId: string;
  readonly cancelledCallIds: ReadonlyArray<string>;
}

/** An open run whose owner is still alive: recovery leaves it to that process. */
export interface LiveRun {
  readonly runId: string;
  readonly sessionId: string;
  readonly pid: number;
  readonly host: string;
  readonly heartbeatAt: string;
}

export interface RunListFilter {
  readonly sessionId?: string;
  readonly terminalState?: string;
  readonly limit?: number;
  /** Newest first (default oldest first). */
  readonly newestFirst?: boolean;
  /** Only runs that started before this ISO time (paging backwards through a long session). */
  readonly startedBefore?: string;
  /** Only runs that started at or after this ISO time. */
  readonly startedAfter?: string;
  /** Only runs closed with this reason code (`failure_code`, e.g. `max_steps_reached`). */
  readonly reason?: string;
  /** Leave out runs still `running`. */
  readonly endedOnly?: boolean;
}

/** A run with its whole ledger: what the transcript projector reads. */
export interface RunLedgerRecord {
  readonly run: RunRecord;
  readonly events: ReadonlyArray<LedgerEvent>;
  readonly receipts: ReadonlyArray<ExecutionReceipt>;
}

/** The canonical run ledger. Append-only; every write batch is one transaction. */
export interface AgentRunStoreShape {
  /** The run row and (in the same transaction) its first events, e.g. the user input. */
  readonly createRun: (run: NewRun, events?: ReadonlyArray<EventToAppend>) => Effect.Effect<void, LedgerError>;
  /** Events (in order) and then receipts, all or nothing. */
  readonly appendEvents: (
    runId: string,
    events: ReadonlyArray<EventToAppend>,
    receipts?: ReadonlyArray<ExecutionReceipt>,
  ) => Effect.Effect<void, LedgerError>;
  readonly recordReceipt: (receipt: ExecutionReceipt) => Effect.Effect<void, LedgerError>;
  /**
   * Records that these calls are about to be invoked, in one transaction fenced by the run's
   * lease (migration 0009). Refused — the calls must then not run — when this store lost the
   * lease or it expired (`stale_lease`, `lease_expired`), when a call that may not repeat started
   * before (`already_started`), when it waits for approval (`start_without_approval`) or has
   * settled (`call_already_settled`).
   */
  readonly startCalls: (
    runId: string,
    starts: ReadonlyArray<ToolStart>,
    /** Rows of the run (the step's tool_call rows) to write first, in the same transaction. */
    events?: ReadonlyArray<EventToAppend>,
  ) => Effect.Effect<void, LedgerError>;
  /** Every recorded start of the run's calls (a call may have several attempts if it may repeat). */
  readonly listStarts: (runId: string) => Effect.Effect<ReadonlyArray<ToolStartRecord>, LedgerError>;
  /** Terminal event + run row in one transaction. */
  readonly finishRun: (runId: string, closure: RunClosure) => Effect.Effect<void, LedgerError>;
  readonly getRun: (runId: string) => Effect.Effect<RunRecord | undefined, LedgerError>;
  readonly findRunByTrace: (traceId: string) => Effect.Effect<RunRecord | undefined, LedgerError>;
  readonly listRunEvents: (runId: string) => Effect.Effect<ReadonlyArray<LedgerEvent>, LedgerError>;
  readonly listReceipts: (runId: string) => Effect.Effect<ReadonlyArray<ExecutionReceipt>, LedgerError>;
  readonly listSessionRuns: (sessionId: string) => Effect.Effect<ReadonlyArray<RunRecord>, LedgerError>;
  readonly listRuns: (filter?: RunListFilter) => Effect.Effect<ReadonlyArray<RunRecord>, LedgerError>;
  readonly findOpenRuns: () => Effect.Effect<ReadonlyArray<RunRecord>, LedgerError>;
  /** Events and receipts of several runs in two queries, in the order of `runs`. */
  readonly loadRunLedgers: (
    runs: ReadonlyArray<RunRecord>,
  ) => Effect.Effect<ReadonlyArray<RunLedgerRecord>, LedgerError>;
  /**
   * Closes every run without a terminal event whose owner is gone (no owner recorded, ended, its
   * process gone, or its heartbeat expired) as failed/interrupted: start-up recovery.
   */
  readonly recoverInterrupted: () => Effect.Effect<ReadonlyArray<RecoveredRun>, LedgerError>;
  /** Open runs that recovery leaves alone because their owner is alive. */
  readonly findLiveRuns: () => Effect.Effect<ReadonlyArray<LiveRun>, LedgerError>;
  /**
   * Open runs whose owner is gone, with what made it so (`force`: the owner is known gone, its
   * lease need not have expired yet): the runs a resume or a supervisor may take over.
   */
  readonly findAbandonedRuns: () => Effect.Effect<ReadonlyArray<AbandonedRun>, LedgerError>;
  /**
   * Closes an open run that no live runtime drives (parked for approval when its runtime shut
   * down, or its process gone) the way `closing` says, with receipts for its calls that have none;
   * undefined when a live runtime drives it or it is no longer open.
   */
  readonly closeAbandonedRun: (
    runId: string,
    closing: RunClosing,
  ) => Effect.Effect<RecoveredRun | undefined, LedgerError>;
  /** Up to `limit` runs waiting in the run queue for a worker, oldest first. */
  readonly findQueuedRuns: (limit: number) => Effect.Effect<ReadonlyArray<QueuedRun>, LedgerError>;
  /** Takes a run out of the run queue (its worker holds its lease now). */
  readonly dequeueRun: (runId: string) => Effect.Effect<void, LedgerError>;
  /**
   * Takes over an open run's lease for this store's owner (migration 0007): the new epoch, or
   * undefined when another live owner holds it or the run is no longer open. From then on this
   * store's rows for the run carry the epoch, and the previous holder's are refused.
   */
  readonly acquireLease: (
    runId: string,
    options?: { readonly force?: boolean; readonly skipLocked?: boolean },
  ) => Effect.Effect<number | undefined, LedgerError>;
  /** A process group a tool started, recorded before its program runs (migration 0010). */
  readonly recordToolProcess: (record: ToolProcessRecord) => Effect.Effect<void, LedgerError>;
  /** Marks a recorded group ended (by its call, or by recovery with what it found); once. */
  readonly endToolProcess: (marker: string, end: ToolProcessEnd) => Effect.Effect<void, LedgerError>;
  /**
   * Groups recorded on `host` and not marked ended whose run has ended or whose run's owner is
   * known gone: what a dead process left running.
   */
  readonly findStrayToolProcesses: (host: string) => Effect.Effect<ReadonlyArray<ToolProcessRecord>, LedgerError>;
}

/** An open run whose owner is gone. */
export interface AbandonedRun {
  readonly run: RunRecord;
  /** The owner is known gone (ended, or its process is gone on this host), not only silent. */
  readonly ownerKnownGone: boolean;
}

export class AgentRunStore extends Context.Tag("agentloop/AgentRunStore")<AgentRunStore, AgentRunStoreShape>() {}
