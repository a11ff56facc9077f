import type * as SqlClient from "@effect/sql/SqlClient";
import type * as Layer from "effect/Layer";
import type * as Logger from "effect/Logger";
import type * as Tracer from "effect/Tracer";
import type { InspectionEvent, Observer } from "xstate";
import {
  type AgentRunResult,
  type ApprovalRequest,
  type ApprovalScope,
  CompletionContract,
  type CompletionContractInput,
  type ContextMessage,
  type ExecutionReceipt,
  type HostApprovalDecision,
  type JsonValue,
  type LedgerEvent,
  type Locale,
  type LoopEvent,
  type ReceiptVerificationMode,
  type RunRecord,
} from "../domain/index.js";
import type { AgentRunStore, RunListFilter } from "../persistence/AgentRunStore.js";
import type { Dialect } from "../persistence/engine/Dialect.js";
import type { LedgerSignals } from "../persistence/ledgerSignals.js";
import type { MemoryItemStore } from "../persistence/MemoryItemStore.js";
import type { MemoryTurnStore } from "../persistence/MemoryTurnStore.js";
import { DEFAULT_OWNER_SETTINGS, type OwnerSettings } from "../persistence/runOwners.js";
import type { MemoryService } from "../services/memory/MemoryService.js";
import type { LogMode } from "../services/observability/logging.js";
import type { RunTrace } from "../services/observability/runRoots.js";
import type { Provider } from "../services/providers/Provider.js";
import type { RetryPolicy } from "../services/providers/retry.js";
import type { ApprovalPolicy } from "../services/tools/approvalPolicy.js";
import type { AnyToolDefinition } from "../services/tools/Tool.js";
import type { SystemPrompt } from "../services/workspace/prompt.js";
import type { RunView } from "./runView.js";
import type { TranscriptStore } from "./stores.js";
import type { SupervisorSettings } from "./supervisor.js";

/** The runtime's public configuration and handle types, and the small helpers that read them. */

/**
 * What a run needs, under a name every replica registers: a run started, enqueued or taken over
 * by name is built from the same definition wherever it is driven. A run's own options still win.
 */
export interface AgentDefinition {
  readonly provider?: Provider | undefined;
  readonly tools?: ReadonlyArray<AnyToolDefinition> | undefined;
  /** Names the agent's runs may call (default: all its tools). */
  readonly allowedTools?: ReadonlyArray<string> | undefined;
  readonly contract?: CompletionContractInput | undefined;
  /**
   * The agent's system prompt, the first message of each of its runs: over the base prompt
   * (`BASE_PROMPT`), a string replaces it, `{ append }` adds to it, a function rewrites it.
   */
  readonly system?: SystemPrompt | undefined;
  readonly maxSteps?: number | undefined;
  readonly locale?: Locale | undefined;
  readonly approval?: ApprovalPolicy | undefined;
}

export interface AgentRuntimeConfig {
  /** SQLite file for the ledger, or ":memory:". */
  readonly database: string;
  /** Named agents: `startRun({ agent })`, `enqueueRun({ agent })` and workers build runs from them. */
  readonly agents?: Readonly<Record<string, AgentDefinition>> | undefined;
  /**
   * Makes this runtime a worker: it picks up runs that `enqueueRun` wrote (in any process on the
   * same ledger) and drives each under its lease, at most `concurrency` at once (default 4).
   * `pollMs` (default 200): how often it looks for queued runs another process wrote; runs
   * enqueued on this runtime start at once. `onRun` receives the handle of each run it picks up.
   */
  readonly worker?:
    | {
        readonly concurrency?: number | undefined;
        readonly pollMs?: number | undefined;
        readonly onRun?: ((handle: RunHandle) => void) | undefined;
      }
    | undefined;
  readonly provider?: Provider | undefined;
  readonly tools?: ReadonlyArray<AnyToolDefinition> | undefined;
  /** Steps before a run ends `incomplete` (default 24: enough for real tasks, short enough to stop a loop early). */
  readonly maxSteps?: number | undefined;
  readonly doomLoopThreshold?: number | undefined;
  readonly maxProtocolRepairs?: number | undefined;
  readonly toolConcurrency?: number | undefined;
  readonly defaultToolTimeoutMs?: number | undefined;
  readonly retry?: RetryPolicy | undefined;
  readonly payloadCapBytes?: number | undefined;
  readonly locale?: Locale | undefined;
  /** Rollout switch: `observe` records verdicts but reports as `off`; default `enforce`. */
  readonly receiptVerification?: ReceiptVerificationMode | undefined;
  /**
   * ask the run's provider, in one extra call, about the sentences of a `completed`
   * answer the claim detector was unsure of; it can only add claims (never upgrade a run). Off by
   * default; counted in `agentloop_claim_judge_calls_total`.
   */
  readonly claimJudge?: boolean | undefined;
  /**
   * Close runs a crashed process left open (default true). Runs whose owner — another runtime on
   * the same file — is still alive are left to it: a process on this host is gone when its pid is,
   * any owner when its heartbeat lapsed.
   */
  readonly recoverOnStart?: boolean | undefined;
  /** This runtime's owner heartbeat on the ledger (defaults: every 5 s, counted gone after 30 s). */
  readonly ownerHeartbeat?:
    | { readonly intervalMs?: number | undefined; readonly expiryMs?: number | undefined }
    | undefined;
  /**
   * how long a run's lease lasts without renewal and how often this runtime renews the
   * leases of the runs it drives (defaults 30 s and 5 s; the owner heartbeat is the same beat, and
   * this setting wins over `ownerHeartbeat`). Another runtime may take a run over once it lapses.
   */
  readonly lease?: { readonly durationMs?: number | undefined; readonly renewEveryMs?: number | undefined } | undefined;
  /**
   * continue runs whose owner is gone instead of closing them as failed/interrupted —
   * at start-up and then on every poll (default every 2 s; on PostgreSQL also as soon as an owner
   * announces its shutdown). Claims use the leases, so several supervising replicas never drive
   * one run twice. `onResumed` receives each run this runtime took over.
   */
  readonly supervise?: boolean | SupervisorSettings<RunHandle> | undefined;
  /** Structured run logs: `json` (JSON lines on stderr, redacted) or `off` (default). */
  readonly logs?: LogMode | undefined;
  /** Receives the run logs instead of the JSON logger (redacted the same way); implies logging on. */
  readonly logger?: Logger.Logger<unknown, unknown> | undefined;
  /** A tracing layer (e.g. `otelTracingLayer(...)`, `Layer.setTracer(...)`); default: Effect's tracer, nothing exported. */
  readonly tracing?: Layer.Layer<never> | undefined;
  /**
   * How often this runtime reads cancels other processes asked for (`cancelRun`, `agentloop
   * cancel`) while it drives runs, where the ledger cannot announce them (SQLite; default 250 ms).
   */
  readonly cancelPollMs?: number | undefined;
  /** How long `dispose()` waits for cancelled runs to write their terminal state (default 10 s). */
  readonly shutdownTimeoutMs?: number | undefined;
  /**
   * XState's inspection API for every run actor: a function, or an observer such as the Stately
   * inspector's `inspector.inspect`; it receives the events, snapshots and actors of every run.
   */
  readonly inspect?: ((event: InspectionEvent) => void) | Observer<InspectionEvent> | undefined;
  /**
   * which calls of every run wait for approval (a run's own `approval` replaces it), and
   * how often a waiting run reads the ledger for decisions made by other processes (default 250 ms).
   */
  readonly approval?: (ApprovalPolicy & { readonly pollMs?: number | undefined }) | undefined;
}

export interface StartRunOptions {
  /** A named agent of the runtime's `agents`: its provider, tools, contract and system prompt. */
  readonly agent?: string | undefined;
  readonly sessionId: string;
  readonly input: string;
  readonly contract?: CompletionContractInput | undefined;
  /** Replaces the runtime's tools for this run. */
  readonly tools?: ReadonlyArray<AnyToolDefinition> | undefined;
  /** Names this run may call (default: all its tools). */
  readonly allowedTools?: ReadonlyArray<string> | undefined;
  readonly provider?: Provider | undefined;
  /**
   * The run's system prompt, over its agent's (or the base prompt, `BASE_PROMPT`, sent by default):
   * a string replaces it, `{ append }` adds a section after it, a function rewrites it, `false`
   * sends none.
   */
  readonly system?: SystemPrompt | undefined;
  /** Messages before this run's user input, after its system prompt (replayed history). */
  readonly history?: ReadonlyArray<ContextMessage> | undefined;
  readonly maxSteps?: number | undefined;
  readonly locale?: Locale | undefined;
  readonly runId?: string | undefined;
  readonly traceId?: string | undefined;
  /** The host's span to hang the run's root span under (its trace id becomes the run's). */
  readonly parentSpan?: Tracer.AnySpan | undefined;
  /** Aborting it cancels the run exactly like `actor.send({ type: "CANCEL" })`. */
  readonly signal?: AbortSignal | undefined;
  /** which calls wait for approval (replaces the runtime's policy; tools' `requiresApproval` always counts). */
  readonly approval?: ApprovalPolicy | undefined;
}

/** What `enqueueRun` takes: a run of a named agent, for any worker on the ledger to drive. */
export interface EnqueueRunOptions {
  readonly agent: string;
  readonly sessionId: string;
  readonly input: string;
  /** Replaces the agent's contract for this run. */
  readonly contract?: CompletionContractInput | undefined;
  /**
   * The run's system prompt over the agent's (see `StartRunOptions.system`), resolved here and
   * kept with the run's input in the ledger, so the worker that drives it sends the same text.
   */
  readonly system?: SystemPrompt | undefined;
  readonly runId?: string | undefined;
  readonly traceId?: string | undefined;
}

/** What `dispose` does with a run that waits for an approval. */
export interface DisposeOptions {
  /** `park` (the default) leaves it open in the ledger for a later runtime; `cancel` ends it. */
  readonly waiting?: "park" | "cancel" | undefined;
}

/** What `resumeRun` takes: the parts of a run that are not in its ledger. */
export interface ResumeRunOptions
  extends Pick<
    StartRunOptions,
    "tools" | "allowedTools" | "provider" | "system" | "history" | "maxSteps" | "locale" | "signal" | "approval"
  > {
  /** Take the lease even though it has not expired (the caller knows its holder is gone). */
  readonly force?: boolean | undefined;
  /** @internal the supervisor's scan skips a lease another replica is taking right now. */
  readonly skipLocked?: boolean | undefined;
  /** @internal a worker takes a run from the queue (no owner to judge). */
  readonly queued?: boolean | undefined;
}

/** Parsed contracts by the object a host passed: hosts reuse one contract object for many runs. */
const contracts = new WeakMap<CompletionContractInput, CompletionContract>();
export function parsedContract(input: CompletionContractInput): CompletionContract {
  const known = contracts.get(input);
  if (known) return known;
  const contract = CompletionContract.parse(input);
  contracts.set(input, contract);
  return contract;
}

/** A lapse shorter than two beats would let a busy owner look gone between two heartbeats. */
export function ownerSettings(intervalMs: number | undefined, expiryMs: number | undefined): OwnerSettings {
  const settings = {
    heartbeatMs: intervalMs ?? DEFAULT_OWNER_SETTINGS.heartbeatMs,
    expiryMs: expiryMs ?? Math.max(DEFAULT_OWNER_SETTINGS.expiryMs, 2 * (intervalMs ?? 0)),
  };
  if (!(settings.heartbeatMs > 0) || !(settings.expiryMs >= 2 * settings.heartbeatMs)) {
    throw new Error(
      `ownerHeartbeat: expiryMs (${settings.expiryMs}) must be at least twice intervalMs (${settings.heartbeatMs}), both positive`,
    );
  }
  return settings;
}

/** The services every run and every host query can use. */
export type RuntimeServices =
  | AgentRunStore
  | MemoryTurnStore
  | MemoryItemStore
  | MemoryService
  | SqlClient.SqlClient
  | Dialect
  | LedgerSignals;

/** A run's events: iterable any number of times, each time from the first event (or from `from(n)`). */
export interface RunEvents extends AsyncIterable<LoopEvent> {
  /** The events from position `n` (0: the first) on, then each new one until the run ends. */
  from(n: number): AsyncIterable<LoopEvent>;
}

export interface RunHandle {
  readonly runId: string;
  readonly traceId: string;
  /**
   * The run's actor, read-only: getSnapshot, subscribe, and its emitted events (`on`). A host
   * changes a run only through `cancel`, `approve` and `deny`.
   */
  readonly actor: RunView;
  /**
   * The run's events for any number of listeners: each `for await` gets every event from the
   * first (or, with `events.from(n)`, from the n-th) until `done`, even one that starts after the
   * run ended.
   */
  readonly events: RunEvents;
  readonly result: Promise<AgentRunResult>;
  readonly transcript: TranscriptStore;
  /** Cancels the run: it ends `cancelled`, open calls get `cancelled` receipts. */
  cancel(): void;
  /** The run's root span and tracer when tracing is on (deliveries after the run join its tree). */
  readonly trace: RunTrace | undefined;
  /**
   * approves a call that waits (`approval_requested`). The decision is a ledger row
   * first (who, when, scope), then the call runs — with `arguments` instead of the model's, if
   * given (validated again). `run` / `session` scope: later calls of the tool in this run / this
   * session no longer ask. Rejects when the call has a decision already or has settled.
   */
  approve(callId: string, options?: ApproveOptions): Promise<void>;
  /** denies a waiting call; it gets a `denied` receipt and the model is told, with `message`. */
  deny(callId: string, options?: DenyOptions): Promise<void>;
  /**
   * The calls waiting for a decision now, as `approval_requested` announced them: for a host that
   * subscribed after a request was announced (a resumed run asks again at once).
   */
  waitingApprovals(): ReadonlyArray<ApprovalRequest>;
}

export interface ApproveOptions {
  readonly scope?: ApprovalScope | undefined;
  readonly arguments?: JsonValue | undefined;
  /** Who decided (default "host"); the CLI uses "cli:<user>". */
  readonly decidedBy?: string | undefined;
}

export interface DenyOptions {
  readonly message?: string | undefined;
  readonly decidedBy?: string | undefined;
}

/** A host's approval as the ledger records it (by "host", now, scope `once` unless said). */
export const approvedDecision = (options: ApproveOptions): HostApprovalDecision => ({
  decision: "approved",
  scope: options.scope ?? "once",
  ...(options.arguments !== undefined ? { arguments: options.arguments } : {}),
  decidedBy: options.decidedBy ?? "host",
  decidedAt: new Date().toISOString(),
});

/** A host's denial as the ledger records it. */
export const deniedDecision = (options: DenyOptions): HostApprovalDecision => ({
  decision: "denied",
  message: options.message ?? "",
  decidedBy: options.decidedBy ?? "host",
  decidedAt: new Date().toISOString(),
});

/** The ledger, read through Promises (for hosts that do not use Effect). */
export interface LedgerReader {
  getRun(runId: string): Promise<RunRecord | undefined>;
  listRuns(filter?: RunListFilter): Promise<ReadonlyArray<RunRecord>>;
  listSessionRuns(sessionId: string): Promise<ReadonlyArray<RunRecord>>;
  listEvents(runId: string): Promise<ReadonlyArray<LedgerEvent>>;
  listReceipts(runId: string): Promise<ReadonlyArray<ExecutionReceipt>>;
  findRunByTrace(traceId: string): Promise<RunRecord | undefined>;
}

export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;
