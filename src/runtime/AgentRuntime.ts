import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as FiberMap from "effect/FiberMap";
import type * as ManagedRuntime from "effect/ManagedRuntime";
import * as Scope from "effect/Scope";
import type { AnyActorRef } from "xstate";
import type { HostApprovalDecision } from "../domain/index.js";
import type { LedgerError, RecoveredRun } from "../persistence/AgentRunStore.js";
import { AgentRunStore } from "../persistence/AgentRunStore.js";
import type { DatabaseError } from "../persistence/database.js";
import { cancelRequested } from "../persistence/runCancellation.js";
import { loggingEnabled } from "../services/observability/logging.js";
import { metricsText } from "../services/observability/prometheus.js";
import type { EndedStrayProcess } from "../services/processes/processLedger.js";
import { DEFAULT_TOOL_TIMEOUT_MS } from "../services/tools/callPlanner.js";
import { cancelRunRequest, decisionRequest, enqueueRunRequest, type RequestRefused } from "./ledgerRequests.js";
import { DEFAULT_CANCEL_POLL_MS, startLedgerWatch } from "./ledgerWatch.js";
import {
  DEFAULT_WORKER_CONCURRENCY,
  DEFAULT_WORKER_POLL_MS,
  type Dispatcher,
  startDispatcher,
} from "./runDispatcher.js";
import { openRunSession, type RunSession, type RunSessionHost, type RunSessionOptions } from "./runSession.js";
import { agentOf, providerOf, type RunSettings, resolveRunSettings, toolsOf } from "./runSettings.js";
import type {
  AgentRuntimeConfig,
  ApproveOptions,
  DenyOptions,
  DisposeOptions,
  EnqueueRunOptions,
  LedgerReader,
  ResumeRunOptions,
  RunEvents,
  RunHandle,
  RuntimeServices,
  StartRunOptions,
} from "./runtimeConfig.js";
import { approvedDecision, DEFAULT_SHUTDOWN_TIMEOUT_MS, deniedDecision } from "./runtimeConfig.js";
import { openRuntimeServices } from "./runtimeServices.js";
import { makeRunRegistry, type RunRegistry } from "./stores.js";
import { type SupervisorSettings, startSupervisor, takeOverRun } from "./supervisor.js";

export type {
  AgentDefinition,
  AgentRuntimeConfig,
  ApproveOptions,
  DenyOptions,
  DisposeOptions,
  EnqueueRunOptions,
  LedgerReader,
  ResumeRunOptions,
  RunEvents,
  RunHandle,
  RuntimeServices,
  StartRunOptions,
} from "./runtimeConfig.js";

/** The composed runtime: one ManagedRuntime over the ledger layer, many concurrent run actors. */
export class AgentRuntime {
  readonly registry: RunRegistry = makeRunRegistry();
  /** The runs in flight on this runtime, each one scoped session. */
  private readonly sessions = new Map<string, RunSession>();
  /** Tools approved with scope `session`, by session id: this runtime's memory only. */
  private readonly sessionGrants = new Map<string, Set<string>>();
  private disposal: Promise<void> | undefined;
  /** Decisions made elsewhere are announced (PostgreSQL): a waiting run reads them when told, not on a poll. */
  private decisionsAnnounced = false;
  /** Where every run's interruptible work lives (each run's under its own keys), and its scope. */
  private readonly work = Effect.runSync(
    Effect.gen(function* () {
      const scope = yield* Scope.make();
      return { scope, fibers: yield* FiberMap.make<string>().pipe(Scope.extend(scope)) };
    }),
  );

  private constructor(
    private readonly config: AgentRuntimeConfig,
    readonly managed: ManagedRuntime.ManagedRuntime<RuntimeServices, DatabaseError>,
    readonly recovered: ReadonlyArray<RecoveredRun>,
    /** Tool process groups that processes now gone left running, which start-up ended (logged as warnings). */
    readonly strayProcesses: ReadonlyArray<EndedStrayProcess> = [],
  ) {}

  /** Opens (migrating and, if needed, backing up) the ledger and recovers interrupted runs. */
  static async make(config: AgentRuntimeConfig): Promise<AgentRuntime> {
    const opened = await openRuntimeServices(config);
    const { managed } = opened;
    try {
      const runtime = new AgentRuntime(config, managed, opened.recovered, opened.strayProcesses);
      runtime.decisionsAnnounced = opened.decisionsAnnounced;
      if (config.supervise) runtime.supervise(config.supervise === true ? {} : config.supervise);
      if (config.worker) runtime.startWorker(config.worker);
      runtime.stopLedgerWatch = startLedgerWatch({
        managed,
        cancel: (runId) => runtime.sessions.get(runId)?.handle.cancel(),
        decided: (runId) => runtime.sessions.get(runId)?.readDecisions(),
        catchUp: () => {
          for (const session of runtime.sessions.values()) session.readDecisions();
        },
        driving: () => runtime.sessions.size > 0,
        cancelPollMs: config.cancelPollMs ?? DEFAULT_CANCEL_POLL_MS,
      });
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

  /**
   * The events of a run this runtime drives now (as its handle's `events`), or undefined: for a
   * host that knows only the run id, such as an SSE endpoint that adds the run's text deltas.
   */
  liveEvents(runId: string): RunEvents | undefined {
    return this.sessions.get(runId)?.handle.events;
  }

  /** The process's metrics (Effect's registry) in Prometheus text exposition format. */
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
    return this.open(resolveRunSettings(this.config, options), options).handle;
  }

  /**
   * Starts a run whose actor is `parent`'s child, in `parent`'s actor system: what `fromAgentRun`
   * invokes. The host's inspector (not this runtime's `inspect`) then sees the run.
   * @internal
   */
  startChildRun(parent: AnyActorRef, options: StartRunOptions): RunHandle {
    return this.open(resolveRunSettings(this.config, options), { ...options, parent }).handle;
  }

  /**
   * Continues a run a stopped process left open, from its ledger: takes the run's
   * lease (refused while another live runtime holds it), settles the calls that never reported —
   * re-running those of observe or idempotent tools, reporting the others to the model as
   * `side_effect_unknown` — and drives the run on to exactly one terminal state. The provider and
   * tools are this runtime's unless `options` gives others; `system` and `history` (replayed
   * turns) are not in the run's ledger and come from `options` too — the system prompt defaults to
   * the run's agent's (or the base prompt), except for an enqueued run, which keeps the one it was
   * queued with.
   */
  resumeRun(runId: string, options: ResumeRunOptions = {}): Promise<RunHandle> {
    return this.resume(runId, options, undefined);
  }

  /**
   * Resumes a run whose actor is `parent`'s child, as `startChildRun` starts one.
   * @internal
   */
  resumeChildRun(parent: AnyActorRef, runId: string, options: ResumeRunOptions = {}): Promise<RunHandle> {
    return this.resume(runId, options, parent);
  }

  private async resume(runId: string, options: ResumeRunOptions, parent: AnyActorRef | undefined): Promise<RunHandle> {
    if (this.disposal) throw new Error("this AgentRuntime is disposed: resume runs on a new one");
    if (this.sessions.has(runId)) throw new Error(`run ${runId} is already in flight on this runtime`);
    // A run of a named agent is rebuilt from that agent's definition on this runtime.
    const agentName = (await this.ledger.getRun(runId))?.agentName ?? null;
    const agent = agentOf(this.config, agentName);
    providerOf(this.config, options, "resumeRun", agent);
    const { tools } = toolsOf(this.config, options, agent);
    const { run, plan } = await this.run(
      takeOverRun(runId, {
        tools,
        defaultToolTimeoutMs: this.config.defaultToolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
        force: options.force === true,
        skipLocked: options.skipLocked === true,
        queued: options.queued === true,
      }),
    );
    const settings = resolveRunSettings(this.config, {
      ...options,
      agent: agentName ?? undefined,
      runId,
      sessionId: run.sessionId,
      input: plan.input,
      contract: run.contract,
      ...(options.system === undefined && plan.system !== undefined ? { system: plan.system } : {}),
      history: [...(options.history ?? []), ...plan.transcript],
    });
    const { handle } = this.open(settings, {
      traceId: run.traceId ?? undefined,
      signal: options.signal,
      resume: plan.point,
      parent,
    });
    // A cancel asked for while nobody drove the run is honoured by whoever drives it next.
    const asked = cancelRequested(runId).pipe(
      Effect.orElseSucceed(() => false),
      Effect.withTracerEnabled(false),
    );
    if (await this.run(asked)) handle.cancel();
    return handle;
  }

  /**
   * Cancels a run from any process on the ledger. The request is a ledger row first; the runtime
   * driving the run (this one or another) cancels it at once where the engine announces requests
   * (PostgreSQL) and within `cancelPollMs` otherwise; a run nobody has started yet (still queued)
   * is closed `cancelled` here. Rejects for a run that is not in the ledger or has ended.
   */
  async cancelRun(runId: string, options: { readonly requestedBy?: string | undefined } = {}): Promise<void> {
    await this.request(cancelRunRequest(runId, options.requestedBy ?? "host"));
    this.sessions.get(runId)?.handle.cancel();
  }

  /**
   * Approves a call that waits in a run driven by any process on the ledger: the decision is a
   * ledger row, applied at once when this runtime drives the run, otherwise by the runtime that
   * does at its next look. Rejects when the call has a decision already or has settled.
   */
  async approve(runId: string, callId: string, options: ApproveOptions = {}): Promise<void> {
    const local = this.sessions.get(runId);
    if (local) return local.handle.approve(callId, options);
    await this.recordDecision(runId, callId, approvedDecision(options));
  }

  /** Denies a call that waits in a run driven by any process on the ledger (see `approve`). */
  async deny(runId: string, callId: string, options: DenyOptions = {}): Promise<void> {
    const local = this.sessions.get(runId);
    if (local) return local.handle.deny(callId, options);
    await this.recordDecision(runId, callId, deniedDecision(options));
  }

  /**
   * Writes a run of a named agent and its place in the run queue, in one transaction, and returns
   * its id at once: a runtime made with `worker` — this one or any other on the same ledger —
   * takes the run's lease and drives it. Rejects a name this runtime does not know.
   */
  async enqueueRun(options: EnqueueRunOptions): Promise<{ readonly runId: string }> {
    if (this.disposal) throw new Error("this AgentRuntime is disposed: enqueue runs on a new one");
    const runId = await this.run(enqueueRunRequest(this.config, options));
    this.dispatcher?.wake();
    return { runId };
  }

  /**
   * A worker's pick from the queue: the run's lease first, then out of the queue, then driven.
   * Undefined when the run is not this worker's (another took it, or it ended); rejects for an
   * agent this runtime does not know, which leaves the run queued for a replica that does.
   */
  private async driveQueued(runId: string): Promise<{ readonly ended: Promise<unknown> } | undefined> {
    if (this.disposal || this.sessions.has(runId)) return undefined;
    const run = await this.ledger.getRun(runId);
    if (run?.terminalState !== "running") return undefined;
    agentOf(this.config, run.agentName);
    const handle = await this.resumeRun(runId, { skipLocked: true, queued: true }).catch(() => undefined);
    if (!handle) return undefined;
    await this.run(Effect.flatMap(AgentRunStore, (store) => store.dequeueRun(runId)));
    this.config.worker?.onRun?.(handle);
    // Wrapped: an async function returning the promise itself would wait for the run to end.
    return { ended: handle.result };
  }

  private open(settings: RunSettings, options: RunSessionOptions): RunSession {
    if (this.disposal) throw new Error("this AgentRuntime is disposed: start runs on a new one");
    const session = openRunSession(settings, this.sessionHost(settings.sessionId), options);
    this.sessions.set(session.runId, session);
    return session;
  }

  private sessionHost(sessionId: string): RunSessionHost {
    let grants = this.sessionGrants.get(sessionId);
    if (!grants) {
      grants = new Set();
      this.sessionGrants.set(sessionId, grants);
    }
    return {
      managed: this.managed,
      fibers: this.work.fibers,
      registry: this.registry,
      sessionGrants: grants,
      logging: loggingEnabled(this.config),
      tracing: this.config.tracing !== undefined,
      inspect: this.config.inspect,
      decisionsAnnounced: this.decisionsAnnounced,
      decide: (runId, callId, decision) => this.recordDecision(runId, callId, decision),
      closed: (runId) => this.sessions.delete(runId),
    };
  }

  /** The decision lands in the ledger first; the run in flight then hears of it at once (not at its next poll). */
  private recordDecision(runId: string, callId: string, decision: HostApprovalDecision) {
    return this.request(decisionRequest(runId, callId, decision));
  }

  /** A request the ledger may refuse: a refusal rejects with its one line. */
  private async request<A>(effect: Effect.Effect<A, RequestRefused | LedgerError, RuntimeServices>): Promise<A> {
    const outcome = await this.run(Effect.either(effect));
    if (outcome._tag === "Left") throw new Error(outcome.left.message);
    return outcome.right;
  }

  /**
   * Cancels every run in flight (each ends `cancelled`, its open calls with `cancelled` receipts
   * and their process groups killed), waits for their terminal rows, then closes the ledger.
   * A run that waits for an approval is parked by default (`waiting: "park"`: left open for
   * `resumeRun`, `cancelRun` or `agentloop cancel`), or cancelled with the others under
   * `waiting: "cancel"`. Resolves only then; later calls return the first call's promise. A run
   * that cannot finish within `shutdownTimeoutMs` stays `running` in the ledger, and the next
   * start's recovery closes it.
   */
  dispose(options: DisposeOptions = {}): Promise<void> {
    this.disposal ??= this.shutdown(options.waiting ?? "park");
    return this.disposal;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }

  private supervise(settings: SupervisorSettings<RunHandle>): void {
    this.stopSupervisor = startSupervisor(settings, {
      managed: this.managed,
      inFlight: (runId) => this.sessions.has(runId),
      disposed: () => this.disposal !== undefined,
      resume: (runId) => this.resumeRun(runId, { skipLocked: true }),
    });
  }

  private stopSupervisor: (() => Promise<void>) | undefined;

  private startWorker(settings: NonNullable<AgentRuntimeConfig["worker"]>): void {
    this.dispatcher = startDispatcher(
      {
        concurrency: settings.concurrency ?? DEFAULT_WORKER_CONCURRENCY,
        pollMs: settings.pollMs ?? DEFAULT_WORKER_POLL_MS,
      },
      {
        managed: this.managed,
        disposed: () => this.disposal !== undefined,
        drive: (runId) => this.driveQueued(runId),
      },
    );
  }

  private dispatcher: Dispatcher | undefined;
  private stopLedgerWatch: (() => Promise<void>) | undefined;

  private async shutdown(waiting: "park" | "cancel"): Promise<void> {
    // A worker stops taking runs first: what it has not taken stays queued for another.
    await this.dispatcher?.stop();
    await this.stopSupervisor?.();
    await this.stopLedgerWatch?.();
    const all = [...this.sessions.values()];
    // A run waiting for approval is parked, not cancelled: its request is durable, the next
    // runtime's recovery leaves it open, and `resumeRun` brings it back to the same wait.
    const parked = waiting === "park" ? all.filter((session) => session.waitingForApproval()) : [];
    await Promise.all(parked.map((session) => session.close()));
    const runs = all.filter((session) => !parked.includes(session));
    for (const session of runs) session.handle.cancel();
    await this.managed.runPromise(
      Effect.promise(() => Promise.allSettled(runs.map((session) => session.handle.result))).pipe(
        Effect.timeout(this.config.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS),
        Effect.ignore,
      ),
    );
    await Promise.all(runs.map((session) => session.close()));
    // Not awaited: work that ignores interruption must not hold the shutdown.
    Effect.runFork(Scope.close(this.work.scope, Exit.void));
    await this.managed.dispose();
  }
}
