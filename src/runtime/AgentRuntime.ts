import { randomUUID } from "node:crypto";
import { Cause, Effect, Layer, ManagedRuntime } from "effect";
import { createActor } from "xstate";
import { type AgentRunResult, HostApprovalDecision, type LoopEvent, NONE_CONTRACT } from "../domain/index.js";
import type { ResumePoint } from "../machines/run/context.js";
import type { RecoveredRun } from "../persistence/AgentRunStore.js";
import { AgentRunStore } from "../persistence/AgentRunStore.js";
import { recordApprovalDecision } from "../persistence/approvals.js";
import type { DatabaseError } from "../persistence/database.js";
import * as Ledger from "../persistence/ledger.js";
import { layer as memoryItemStoreLayer } from "../persistence/MemoryItemStore.js";
import { layer as memoryTurnStoreLayer } from "../persistence/MemoryTurnStore.js";
import { memoryServiceLayer } from "../services/memory/MemoryService.js";
import { loggingEnabled, loggingLayer } from "../services/observability/logging.js";
import { metricsText } from "../services/observability/prometheus.js";
import { observeRun } from "../services/observability/tracing.js";
import { type EndedStrayProcess, endStrayToolProcesses } from "../services/processes/processLedger.js";
import { DEFAULT_RETRY_POLICY } from "../services/providers/retry.js";
import { DEFAULT_TOOL_TIMEOUT_MS } from "../services/tools/callPlanner.js";
import { EventStream } from "./eventStream.js";
import { provideRunMachine } from "./runIO.js";
import { type RunOperations, runOperations } from "./runOperations.js";
import type {
  AgentRuntimeConfig,
  LedgerReader,
  ResumeRunOptions,
  RunHandle,
  RuntimeServices,
  StartRunOptions,
} from "./runtimeConfig.js";
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, type InFlightRun, ownerSettings, parsedContract } from "./runtimeConfig.js";
import { runView } from "./runView.js";
import { makeRunRegistry, makeTranscriptStore, type RunRegistry } from "./stores.js";
import { type SupervisorSettings, startSupervisor, takeOverRun } from "./supervisor.js";

export type {
  AgentRuntimeConfig,
  ApproveOptions,
  DenyOptions,
  LedgerReader,
  ResumeRunOptions,
  RunHandle,
  RuntimeServices,
  StartRunOptions,
} from "./runtimeConfig.js";

/** The composed runtime: one ManagedRuntime over the ledger layer, many concurrent run actors. */
export class AgentRuntime {
  readonly registry: RunRegistry = makeRunRegistry();
  /** The I/O of each run in flight, by run id: what the machine's actors call. */
  private readonly operations = new Map<string, RunOperations>();
  private readonly inFlight = new Map<string, InFlightRun>();
  /** Tools approved with scope `session`, by session id: this runtime's memory only. */
  private readonly sessionGrants = new Map<string, Set<string>>();
  private disposal: Promise<void> | undefined;
  private machine: ReturnType<typeof provideRunMachine> | undefined;

  private constructor(
    private readonly config: AgentRuntimeConfig,
    readonly managed: ManagedRuntime.ManagedRuntime<RuntimeServices, DatabaseError>,
    readonly recovered: ReadonlyArray<RecoveredRun>,
    /** Tool process groups that processes now gone left running, which start-up ended (logged as warnings). */
    readonly strayProcesses: ReadonlyArray<EndedStrayProcess> = [],
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
        loggingLayer(config),
        config.tracing ?? Layer.empty,
      ).pipe(Layer.provideMerge(layer)),
    );
    try {
      await managed.runtime(); // built before the first startRun opens a root span synchronously
      // A supervising runtime continues abandoned runs rather than closing them.
      const recovered =
        config.recoverOnStart === false || config.supervise
          ? []
          : await managed.runPromise(Effect.flatMap(AgentRunStore, (store) => store.recoverInterrupted()));
      // The commands that dead processes left running end too (their runs were just closed, or a
      // supervisor is about to continue them). A ledger that cannot be read for them only warns.
      const strayProcesses =
        config.recoverOnStart === false
          ? []
          : await managed.runPromise(
              endStrayToolProcesses().pipe(
                Effect.catchAll((error) =>
                  Effect.as(Effect.logWarning(`stray tool processes were not looked for: ${error.message}`), []),
                ),
              ),
            );
      const runtime = new AgentRuntime(config, managed, recovered, strayProcesses);
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
    return this.launch(options);
  }

  /**
   * Continues a run a stopped process left open, from its ledger: takes the run's
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
      takeOverRun(runId, {
        tools,
        defaultToolTimeoutMs,
        force: options.force === true,
        skipLocked: options.skipLocked === true,
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
        approval: options.approval,
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
    // the run's root span; its trace id is the run's trace id unless the host chose one
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

    const operations = runOperations({
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
      observer,
      resumedAfter: resume?.resumedAfter,
      approval: options.approval ?? this.config.approval,
      approvalPollMs: this.config.approval?.pollMs,
      payloadCapBytes: this.config.payloadCapBytes,
      sessionGrants: this.sessionGrantsOf(options.sessionId),
    });
    this.operations.set(runId, operations);
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
        ...(resume
          ? {
              resume: { ...resume.point, rerun: resume.point.rerun.map((planned) => operations.withApproval(planned)) },
            }
          : {}),
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
    // Resolves when the run reaches its final state. A run parked by `dispose()` while it waits
    // for approval never does on this runtime: its ledger keeps it open for a resume.
    const reachedEnd = new Promise<AgentRunResult>((resolve, reject) => {
      actor.subscribe({
        complete: () => {
          const snapshot = actor.getSnapshot();
          if (snapshot.status === "done") resolve(snapshot.output);
        },
        error: reject,
      });
    });
    const result = observer.ended(reachedEnd).finally(() => {
      signal?.removeEventListener("abort", cancel);
      this.operations.delete(runId);
      this.inFlight.delete(runId);
      events.close();
      this.registry.trigger.ended({ runId });
    });
    const park = () => {
      actor.stop();
      signal?.removeEventListener("abort", cancel);
      this.operations.delete(runId);
      this.inFlight.delete(runId);
      events.close();
      this.registry.trigger.ended({ runId });
    };
    this.inFlight.set(runId, { actor, result, park });
    this.registry.trigger.started({
      run: { runId, traceId, sessionId: options.sessionId, startedAt: new Date().toISOString(), status: "running" },
    });
    actor.start();
    if (signal?.aborted) cancel();
    const decide = (callId: string, decision: HostApprovalDecision) => this.decide(runId, callId, decision);
    return {
      runId,
      traceId,
      actor: runView(actor),
      events,
      result,
      transcript,
      cancel,
      trace: observer.trace,
      approve: (callId, approveOptions = {}) =>
        decide(callId, {
          decision: "approved",
          scope: approveOptions.scope ?? "once",
          ...(approveOptions.arguments !== undefined ? { arguments: approveOptions.arguments } : {}),
          decidedBy: approveOptions.decidedBy ?? "host",
          decidedAt: new Date().toISOString(),
        }),
      deny: (callId, denyOptions = {}) =>
        decide(callId, {
          decision: "denied",
          message: denyOptions.message ?? "",
          decidedBy: denyOptions.decidedBy ?? "host",
          decidedAt: new Date().toISOString(),
        }),
    };
  }

  private sessionGrantsOf(sessionId: string): Set<string> {
    let grants = this.sessionGrants.get(sessionId);
    if (!grants) {
      grants = new Set();
      this.sessionGrants.set(sessionId, grants);
    }
    return grants;
  }

  /** The decision lands in the ledger first; then the run in flight hears of it at once (not at its next poll). */
  private async decide(runId: string, callId: string, input: HostApprovalDecision): Promise<void> {
    const parsed = HostApprovalDecision.safeParse(input);
    if (!parsed.success) throw new Error(`invalid approval decision: ${parsed.error.issues[0]?.message ?? "?"}`);
    const decision = parsed.data;
    const exit = await this.managed.runPromiseExit(recordApprovalDecision(runId, callId, decision));
    if (exit._tag === "Failure") {
      const error = Cause.squash(exit.cause) as { reason?: string; message?: string };
      const why =
        error.reason === "already_decided"
          ? "it has a decision already"
          : error.reason === "decision_without_request"
            ? "no such call waits for approval"
            : error.reason === "call_already_settled"
              ? "the call has settled already"
              : error.reason === "run_not_running"
                ? "the run has ended"
                : (error.message ?? "the ledger refused the decision");
      throw new Error(`cannot ${decision.decision === "approved" ? "approve" : "deny"} ${callId} of ${runId}: ${why}`);
    }
    this.operations.get(runId)?.noteDecision(exit.value.toolName, decision);
    this.inFlight.get(runId)?.actor.send({ type: "APPROVAL_DECIDED", callId, decision });
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

  private supervise(settings: SupervisorSettings<RunHandle>): void {
    this.stopSupervisor = startSupervisor(settings, {
      managed: this.managed,
      inFlight: (runId) => this.inFlight.has(runId),
      disposed: () => this.disposal !== undefined,
      resume: (runId) => this.resumeRun(runId, { skipLocked: true }),
    });
  }

  private stopSupervisor: (() => void) | undefined;

  private async shutdown(): Promise<void> {
    this.stopSupervisor?.();
    const all = [...this.inFlight.values()];
    // A run waiting for approval is parked, not cancelled: its request is durable, the next
    // runtime's recovery leaves it open, and `resumeRun` brings it back to the same wait.
    const parked = all.filter((run) => run.actor.getSnapshot().matches({ active: { approval: "awaitingApproval" } }));
    for (const run of parked) run.park();
    const runs = all.filter((run) => !parked.includes(run));
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
