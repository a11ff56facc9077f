import { randomUUID } from "node:crypto";
import type { SqlClient } from "@effect/sql";
import { Effect, Layer, type Logger, ManagedRuntime, type Tracer } from "effect";
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
import type { runMachine } from "../machines/run/machine.js";
import type { RecoveredRun, RunListFilter } from "../persistence/AgentRunStore.js";
import { AgentRunStore } from "../persistence/AgentRunStore.js";
import type { DatabaseError } from "../persistence/database.js";
import * as Ledger from "../persistence/ledger.js";
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
export type RuntimeServices = AgentRunStore | MemoryTurnStore | MemoryItemStore | MemoryService | SqlClient.SqlClient;

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
    const heartbeat = config.ownerHeartbeat ?? {};
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
      const recovered =
        config.recoverOnStart === false
          ? []
          : await managed.runPromise(Effect.flatMap(AgentRunStore, (store) => store.recoverInterrupted()));
      return new AgentRuntime(config, managed, recovered);
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

  private async shutdown(): Promise<void> {
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
