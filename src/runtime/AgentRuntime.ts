import { randomUUID } from "node:crypto";
import type { SqlClient } from "@effect/sql";
import { Effect, FiberId, Layer, type Logger, ManagedRuntime, Stream, type Tracer } from "effect";
import { type Actor, createActor, type InspectionEvent, toPromise } from "xstate";
import {
  type AgentRunResult,
  CompletionContract,
  type CompletionContractInput,
  type ContextMessage,
  type ExecutionReceipt,
  type LedgerEvent,
  type Locale,
  type LoopEvent,
  NONE_CONTRACT,
  type ReceiptVerificationMode,
  type RunRecord,
} from "../domain/index.js";
import type { ResumePoint } from "../machines/run/context.js";
import type { runMachine } from "../machines/run/machine.js";
import type { RecoveredRun, RunListFilter } from "../persistence/AgentRunStore.js";
import { AgentRunStore } from "../persistence/AgentRunStore.js";
import type { DatabaseError } from "../persistence/database.js";
import * as Ledger from "../persistence/ledger.js";
import { LedgerSignals } from "../persistence/ledgerSignals.js";
import type { MemoryItemStore } from "../persistence/MemoryItemStore.js";
import { layer as memoryItemStoreLayer } from "../persistence/MemoryItemStore.js";
import { type MemoryTurnStore, layer as memoryTurnStoreLayer } from "../persistence/MemoryTurnStore.js";
import { DEFAULT_OWNER_SETTINGS, type OwnerSettings } from "../persistence/runOwners.js";
import { type MemoryService, memoryServiceLayer } from "../services/memory/MemoryService.js";
// [observability] issue J: run spans, run logs, metrics
import { type LogMode, loggingEnabled, loggingLayer } from "../services/observability/logging.js";
import { metricsText } from "../services/observability/prometheus.js";
import type { RunTrace } from "../services/observability/runRoots.js";
import { observeRun } from "../services/observability/tracing.js";
import type { Provider } from "../services/providers/Provider.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../services/providers/retry.js";
import { planResume } from "../services/resumePlan.js";
import { DEFAULT_TOOL_TIMEOUT_MS } from "../services/tools/callPlanner.js";
import type { AnyToolDefinition } from "../services/tools/Tool.js";
import { EventStream } from "./eventStream.js";
import { provideRunMachine } from "./runIO.js";
import { type RunOperations, runOperations } from "./runOperations.js";
import { makeRunRegistry, makeTranscriptStore, type RunRegistry, type TranscriptStore } from "./stores.js";

export interface AgentRuntimeConfig {
  /** SQLite file for the ledger, or ":memory:". */
  readonly database: string;
  readonly provider?: Provider | undefined;
  readonly tools?: ReadonlyArray<AnyToolDefinition> | undefined;
  /** The seed calls 128 too high; 24 is the default. */
  readonly maxSteps?: number | undefined;
  readonly doomLoopThreshold?: number | undefined;
  readonly maxProtocolRepairs?: number | undefined;
  readonly toolConcurrency?: number | undefined;
  readonly defaultToolTimeoutMs?: number | undefined;
  readonly retry?: RetryPolicy | undefined;
  readonly payloadCapBytes?: number | undefined;
  readonly locale?: Locale | undefined;
  /** Rollout switch (seed §3.3): `observe` records verdicts but reports as `off`; default `enforce`. */
  readonly receiptVerification?: ReceiptVerificationMode | undefined;
  /**
   * Issue O: ask the run's provider, in one extra call, about the sentences of a `completed`
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
   * Issue P: how long a run's lease lasts without renewal and how often this runtime renews the
   * leases of the runs it drives (defaults 30 s and 5 s; the owner heartbeat is the same beat, and
   * this setting wins over `ownerHeartbeat`). Another runtime may take a run over once it lapses.
   */
  readonly lease?: { readonly durationMs?: number | undefined; readonly renewEveryMs?: number | undefined } | undefined;
  /**
   * Issue P: continue runs whose owner is gone instead of closing them as failed/interrupted —
   * at start-up and then on every poll (default every 2 s; on PostgreSQL also as soon as an owner
   * announces its shutdown). Claims use the leases, so several supervising replicas never drive
   * one run twice. `onResumed` receives each run this runtime took over.
   */
  readonly supervise?:
    | boolean
    | {
        readonly intervalMs?: number | undefined;
        readonly onResumed?: ((handle: RunHandle) => void) | undefined;
      }
    | undefined;
  // [observability] issue J
  /** Structured run logs: `json` (JSON lines on stderr, redacted) or `off` (default). */
  readonly logs?: LogMode | undefined;
  /** Receives the run logs instead of the JSON logger (redacted the same way); implies logging on. */
  readonly logger?: Logger.Logger<unknown, unknown> | undefined;
  /** A tracing layer (e.g. `otelTracingLayer(...)`, `Layer.setTracer(...)`); default: Effect's tracer, nothing exported. */
  readonly tracing?: Layer.Layer<never> | undefined;
  /** How long `dispose()` waits for cancelled runs to write their terminal state (default 10 s). */
  readonly shutdownTimeoutMs?: number | undefined;
  /** XState's inspection API for every run actor (e.g. the Stately inspector): events, snapshots, actors. */
  readonly inspect?: ((event: InspectionEvent) => void) | undefined;
}

export interface StartRunOptions {
  readonly sessionId: string;
  readonly input: string;
  readonly contract?: CompletionContractInput | undefined;
  /** Replaces the runtime's tools for this run. */
  readonly tools?: ReadonlyArray<AnyToolDefinition> | undefined;
  /** Names this run may call (default: all its tools). */
  readonly allowedTools?: ReadonlyArray<string> | undefined;
  readonly provider?: Provider | undefined;
  /** Messages before this run's user input (system prompt, replayed history). */
  readonly history?: ReadonlyArray<ContextMessage> | undefined;
  readonly maxSteps?: number | undefined;
  readonly locale?: Locale | undefined;
  readonly runId?: string | undefined;
  readonly traceId?: string | undefined;
  /** [observability] The host's span to hang the run's root span under (its trace id becomes the run's). */
  readonly parentSpan?: Tracer.AnySpan | undefined;
  /** Aborting it cancels the run exactly like `actor.send({ type: "CANCEL" })`. */
  readonly signal?: AbortSignal | undefined;
}

/** What `resumeRun` takes: the parts of a run that are not in its ledger. */
export interface ResumeRunOptions
  extends Pick<StartRunOptions, "tools" | "allowedTools" | "provider" | "history" | "maxSteps" | "locale" | "signal"> {
  /** Take the lease even though it has not expired (the caller knows its holder is gone). */
  readonly force?: boolean | undefined;
  /** @internal the supervisor's scan skips a lease another replica is taking right now. */
  readonly skipLocked?: boolean | undefined;
}

export type RunActor = Actor<typeof runMachine>;

/** Parsed contracts by the object a host passed: hosts reuse one contract object for many runs. */
const contracts = new WeakMap<CompletionContractInput, CompletionContract>();
function parsedContract(input: CompletionContractInput): CompletionContract {
  const known = contracts.get(input);
  if (known) return known;
  const contract = CompletionContract.parse(input);
  contracts.set(input, contract);
  return contract;
}

/** A lapse shorter than two beats would let a busy owner look gone between two heartbeats. */
function ownerSettings(intervalMs: number | undefined, expiryMs: number | undefined): OwnerSettings {
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
  | LedgerSignals;

export interface RunHandle {
  readonly runId: string;
  readonly traceId: string;
  /** A real XState actor: subscribe, send `{ type: "CANCEL" }`, getSnapshot. */
  readonly actor: RunActor;
  readonly events: AsyncIterable<LoopEvent>;
  readonly result: Promise<AgentRunResult>;
  readonly transcript: TranscriptStore;
  /** The same as `actor.send({ type: "CANCEL" })`: the run ends `cancelled`, open calls get `cancelled` receipts. */
  cancel(): void;
  /** The run's root span and tracer when tracing is on (deliveries after the run join its tree). */
  readonly trace: RunTrace | undefined;
}

/** The ledger, read through Promises (for hosts that do not use Effect). */
export interface LedgerReader {
  getRun(runId: string): Promise<RunRecord | undefined>;
  listRuns(filter?: RunListFilter): Promise<ReadonlyArray<RunRecord>>;
  listSessionRuns(sessionId: string): Promise<ReadonlyArray<RunRecord>>;
  listEvents(runId: string): Promise<ReadonlyArray<LedgerEvent>>;
  listReceipts(runId: string): Promise<ReadonlyArray<ExecutionReceipt>>;
  findRunByTrace(traceId: string): Promise<RunRecord | undefined>;
}

interface InFlightRun {
  readonly actor: RunActor;
  readonly result: Promise<AgentRunResult>;
}

const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;
const DEFAULT_SUPERVISE_INTERVAL_MS = 2_000;

/** The composed runtime: one ManagedRuntime over the ledger layer, many concurrent run actors. */
export class AgentRuntime {
  readonly registry: RunRegistry = makeRunRegistry();
  /** The I/O of each run in flight, by run id: what the machine's actors call. */
  private readonly operations = new Map<string, RunOperations>();
  private readonly inFlight = new Map<string, InFlightRun>();
  private disposal: Promise<void> | undefined;
  private machine: ReturnType<typeof provideRunMachine> | undefined;

  private constructor(
    private readonly config: AgentRuntimeConfig,
    readonly managed: ManagedRuntime.ManagedRuntime<RuntimeServices, DatabaseError>,
    readonly recovered: ReadonlyArray<RecoveredRun>,
  ) {}

  /** Opens (migrating and, if needed, backing up) the ledger and recovers interrupted runs. */
  static async make(config: AgentRuntimeConfig): Promise<AgentRuntime> {
    const heartbeat = config.lease
      ? { intervalMs: config.lease.renewEveryMs, expiryMs: config.lease.durationMs }
      : (config.ownerHeartbeat ?? {});
    const layer = Ledger.layer({
      filename: config.database,
      owner: ownerSettings(heartbeat.intervalMs, heartbeat.expiryMs),
      ...(config.payloadCapBytes ? { payloadCapBytes: config.payloadCapBytes } : {}),
    });
    const managed = ManagedRuntime.make(
      Layer.mergeAll(
        memoryTurnStoreLayer,
        memoryServiceLayer.pipe(Layer.provideMerge(memoryItemStoreLayer)),
        loggingLayer(config), // [observability]
        config.tracing ?? Layer.empty, // [observability]
      ).pipe(Layer.provideMerge(layer)),
    );
    try {
      await managed.runtime(); // [observability] built before the first startRun opens a root span synchronously
      // A supervising runtime continues abandoned runs rather than closing them.
      const recovered =
        config.recoverOnStart === false || config.supervise
          ? []
          : await managed.runPromise(Effect.flatMap(AgentRunStore, (store) => store.recoverInterrupted()));
      const runtime = new AgentRuntime(config, managed, recovered);
      if (config.supervise) runtime.supervise(config.supervise === true ? {} : config.supervise);
      return runtime;
    } catch (error) {
      await managed.dispose();
      throw error;
    }
  }

  /** Runs an Effect against the runtime's services (the ledger store), e.g. for inspection. */
  run<A, E>(effect: Effect.Effect<A, E, RuntimeServices>): Promise<A> {
    return this.managed.runPromise(effect);
  }

  /** [observability] The process's metrics (Effect's registry) in Prometheus text exposition format. */
  metricsSnapshot(): string {
    return metricsText();
  }

  /** The ledger this runtime writes, read through Promises. */
  readonly ledger: LedgerReader = {
    getRun: (runId) => this.run(Effect.flatMap(AgentRunStore, (store) => store.getRun(runId))),
    listRuns: (filter) => this.run(Effect.flatMap(AgentRunStore, (store) => store.listRuns(filter))),
    listSessionRuns: (sessionId) =>
      this.run(Effect.flatMap(AgentRunStore, (store) => store.listSessionRuns(sessionId))),
    listEvents: (runId) => this.run(Effect.flatMap(AgentRunStore, (store) => store.listRunEvents(runId))),
    listReceipts: (runId) => this.run(Effect.flatMap(AgentRunStore, (store) => store.listReceipts(runId))),
    findRunByTrace: (traceId) => this.run(Effect.flatMap(AgentRunStore, (store) => store.findRunByTrace(traceId))),
  };

  startRun(options: StartRunOptions): RunHandle {
    return this.launch(options);
  }

  /**
   * Continues a run a stopped process left open (issue P), from its ledger: takes the run's
   * lease (refused while another live runtime holds it), settles the calls that never reported —
   * re-running those of observe or idempotent tools, reporting the others to the model as
   * `side_effect_unknown` — and drives the run on to exactly one terminal state. The provider and
   * tools are this runtime's unless `options` gives others; `history` (a system prompt, replayed
   * turns) is not in the run's ledger and comes from `options` too.
   */
  async resumeRun(runId: string, options: ResumeRunOptions = {}): Promise<RunHandle> {
    if (this.disposal) throw new Error("this AgentRuntime is disposed: resume runs on a new one");
    if (this.inFlight.has(runId)) throw new Error(`run ${runId} is already in flight on this runtime`);
    const provider = options.provider ?? this.config.provider;
    if (!provider) throw new Error("resumeRun needs a provider: pass one in the runtime config or the options");
    const toolList = options.tools ?? this.config.tools ?? [];
    const tools = new Map(toolList.map((tool) => [tool.name, tool]));
    const defaultToolTimeoutMs = this.config.defaultToolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    const plan = await this.run(
      Effect.gen(function* () {
        const store = yield* AgentRunStore;
        const run = yield* store.getRun(runId);
        if (!run) return yield* Effect.fail(new Error(`no run ${runId} in the ledger`));
        if (run.terminalState !== "running") {
          return yield* Effect.fail(new Error(`run ${runId} already ended ${run.terminalState}`));
        }
        const abandoned = (yield* store.findAbandonedRuns()).find((candidate) => candidate.run.runId === runId);
        const epoch = yield* store.acquireLease(runId, {
          force: options.force === true || abandoned?.ownerKnownGone === true,
          skipLocked: options.skipLocked === true,
        });
        if (epoch === undefined) {
          return yield* Effect.fail(new Error(`run ${runId} is driven by a live runtime (its lease has not expired)`));
        }
        const [ledger] = yield* store.loadRunLedgers([run]);
        const plan = planResume(ledger!, {
          tools,
          defaultToolTimeoutMs,
          now: new Date().toISOString(),
        });
        if (plan.settle.events.length > 0) yield* store.appendEvents(runId, plan.settle.events, plan.settle.receipts);
        return { run, plan };
      }),
    );
    return this.launch(
      {
        sessionId: plan.run.sessionId,
        input: plan.plan.input,
        contract: plan.run.contract,
        tools: toolList,
        allowedTools: options.allowedTools,
        provider,
        history: [...(options.history ?? []), ...plan.plan.transcript],
        maxSteps: options.maxSteps,
        locale: options.locale,
        runId,
        traceId: plan.run.traceId ?? undefined,
        signal: options.signal,
      },
      {
        resumedAfter: plan.plan.lastSequence,
        point: {
          step: plan.plan.step,
          receipts: plan.plan.receipts,
          callLog: plan.plan.callLog,
          protocolRepairs: plan.plan.protocolRepairs,
          correctionTurns: plan.plan.correctionTurns,
          rerun: plan.plan.rerun,
        },
      },
    );
  }

  private launch(options: StartRunOptions, resume?: { resumedAfter: number; point: ResumePoint }): RunHandle {
    if (this.disposal) throw new Error("this AgentRuntime is disposed: start runs on a new one");
    const provider = options.provider ?? this.config.provider;
    if (!provider) throw new Error("startRun needs a provider: pass one in the runtime config or the run options");
    const runId = options.runId ?? `run_${randomUUID()}`;
    const toolList = options.tools ?? this.config.tools ?? [];
    const tools = new Map(toolList.map((tool) => [tool.name, tool]));
    const allowedTools = new Set(options.allowedTools ?? tools.keys());
    const contract = options.contract ? parsedContract(options.contract) : NONE_CONTRACT;
    // [observability] the run's root span; its trace id is the run's trace id unless the host chose one
    const observer = observeRun({
      runtime: this.managed,
      runId,
      sessionId: options.sessionId,
      traceId: options.traceId,
      parentSpan: options.parentSpan,
      provider,
      contract,
      history: options.history ?? [],
      toolsOffered: provider.capabilities.toolCalling
        ? toolList.filter((t) => allowedTools.has(t.name)).map((t) => t.name)
        : [],
      logging: loggingEnabled(this.config),
      tracing: this.config.tracing !== undefined || options.parentSpan !== undefined,
    });
    const traceId = observer.traceId;
    const transcript = makeTranscriptStore(options.history ?? []);

    this.operations.set(
      runId,
      runOperations({
        runId,
        provider,
        tools,
        allowedTools,
        transcript,
        retry: this.config.retry ?? DEFAULT_RETRY_POLICY,
        defaultToolTimeoutMs: this.config.defaultToolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
        now: () => new Date().toISOString(),
        receiptVerification: this.config.receiptVerification ?? "enforce",
        claimJudge: this.config.claimJudge ?? false,
        observer, // [observability]
        resumedAfter: resume?.resumedAfter,
      }),
    );
    this.machine ??= provideRunMachine(this.managed, (id) => {
      const operations = this.operations.get(id);
      if (!operations) throw new Error(`no run ${id} in flight on this runtime`);
      return operations;
    });
    const actor = createActor(this.machine, {
      id: runId,
      ...(this.config.inspect ? { inspect: this.config.inspect } : {}),
      input: {
        runId,
        traceId,
        sessionId: options.sessionId,
        input: options.input,
        contract,
        toolKinds: Object.fromEntries(toolList.map((tool) => [tool.name, tool.kind])),
        maxSteps: options.maxSteps ?? this.config.maxSteps ?? 24,
        doomLoopThreshold: this.config.doomLoopThreshold ?? 3,
        maxProtocolRepairs: this.config.maxProtocolRepairs ?? 1,
        toolConcurrency: Math.max(1, Math.floor(this.config.toolConcurrency ?? 4)),
        locale: options.locale ?? this.config.locale ?? "en",
        capabilities: provider.capabilities,
        receiptVerification: this.config.receiptVerification ?? "enforce",
        ...(resume ? { resume: resume.point } : {}),
      },
    });

    const events = new EventStream<LoopEvent>();
    actor.on("*", (event) => {
      events.push(event as LoopEvent);
      if (event.type === "done") events.close();
    });
    const cancel = () => actor.send({ type: "CANCEL" });
    const { signal } = options;
    signal?.addEventListener("abort", cancel, { once: true });
    const result = observer.ended(toPromise(actor)).finally(() => {
      signal?.removeEventListener("abort", cancel);
      this.operations.delete(runId);
      this.inFlight.delete(runId);
      events.close();
      this.registry.trigger.ended({ runId });
    });
    this.inFlight.set(runId, { actor, result });
    this.registry.trigger.started({
      run: { runId, traceId, sessionId: options.sessionId, startedAt: new Date().toISOString(), status: "running" },
    });
    actor.start();
    if (signal?.aborted) cancel();
    return { runId, traceId, actor, events, result, transcript, cancel, trace: observer.trace };
  }

  /**
   * Cancels every run in flight (each ends `cancelled`, its open calls with `cancelled` receipts
   * and their process groups killed), waits for their terminal rows, then closes the ledger.
   * Resolves only then; later calls return the same promise. A run that cannot finish within
   * `shutdownTimeoutMs` stays `running` in the ledger, and the next start's recovery closes it.
   */
  dispose(): Promise<void> {
    this.disposal ??= this.shutdown();
    return this.disposal;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }

  /**
   * Takes over abandoned runs: a scan now, then on every poll and every owner-ended signal. A
   * run another replica claims first (its lease taken or locked) is simply skipped.
   */
  private supervise(settings: Exclude<AgentRuntimeConfig["supervise"], boolean | undefined>): void {
    let scanning = false;
    const scan = async () => {
      if (scanning || this.disposal) return;
      scanning = true;
      try {
        const abandoned = await this.run(Effect.flatMap(AgentRunStore, (store) => store.findAbandonedRuns()));
        for (const { run } of abandoned) {
          if (this.disposal || this.inFlight.has(run.runId)) continue;
          const handle = await this.resumeRun(run.runId, { skipLocked: true }).catch(() => undefined);
          if (handle) settings.onResumed?.(handle);
        }
      } catch {
        // A failed scan (the database briefly unreachable) is retried at the next poll.
      } finally {
        scanning = false;
      }
    };
    const timer = setInterval(() => void scan(), settings.intervalMs ?? DEFAULT_SUPERVISE_INTERVAL_MS);
    timer.unref();
    const listener = this.managed.runFork(
      Effect.flatMap(LedgerSignals, (signals) => Stream.runForEach(signals.ownerEnded, () => Effect.promise(scan))),
    );
    this.stopSupervisor = () => {
      clearInterval(timer);
      listener.unsafeInterruptAsFork(FiberId.none);
    };
    void scan();
  }

  private stopSupervisor: (() => void) | undefined;

  private async shutdown(): Promise<void> {
    this.stopSupervisor?.();
    const runs = [...this.inFlight.values()];
    for (const run of runs) run.actor.send({ type: "CANCEL" });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.config.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS);
    });
    await Promise.race([Promise.allSettled(runs.map((run) => run.result)), deadline]);
    clearTimeout(timer);
    for (const run of runs) run.actor.stop();
    await this.managed.dispose();
  }
}
