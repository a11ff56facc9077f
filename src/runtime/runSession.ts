import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import type * as FiberMap from "effect/FiberMap";
import type * as ManagedRuntime from "effect/ManagedRuntime";
import * as Scope from "effect/Scope";
import type * as Tracer from "effect/Tracer";
import type { Actor, AnyActorRef, InspectionEvent, Observer } from "xstate";
import type { AgentRunResult, HostApprovalDecision, LoopEvent, ResumePoint } from "../domain/index.js";
import { isoNow } from "../domain/isoNow.js";
import { RUN_WAITING_FOR_APPROVAL, type runMachine } from "../machines/run/machine.js";
import { shownApprovalRequests } from "../machines/toolBatch/machine.js";
import { observeRun } from "../services/observability/tracing.js";
import { ApprovalDesk } from "./approvalDesk.js";
import { createRunActor } from "./commandBridge.js";
import { commandHandlers } from "./commandHandlers.js";
import { EventStream } from "./eventStream.js";
import type { RunSettings } from "./runSettings.js";
import { approvedDecision, deniedDecision, type RunHandle, type RuntimeServices } from "./runtimeConfig.js";
import { runView } from "./runView.js";
import { makeTranscriptStore, type RunRegistry } from "./stores.js";

/**
 * One live run: its actor, its I/O fibers, its event stream, its result, and the ways it ends —
 * all owned by one Effect scope. Whatever way the run stops (it reached its terminal state, the
 * runtime parked it while it waits for approval, the runtime was disposed), closing that scope
 * is the only clean-up: the actor stops, every fiber it started is interrupted (a tool's
 * AbortSignal fires), the host's stream ends and the runtime forgets the run.
 */

export interface RunSessionHost {
  readonly managed: ManagedRuntime.ManagedRuntime<RuntimeServices, unknown>;
  /** The runtime's interruptible work, every run's under its own keys. */
  readonly fibers: FiberMap.FiberMap<string>;
  readonly registry: RunRegistry;
  /** Tools approved with scope `session` in this run's session (this runtime's memory only). */
  readonly sessionGrants: Set<string>;
  readonly logging: boolean;
  /** The host configured a tracing layer (a run with a parent span gets spans either way). */
  readonly tracing: boolean;
  readonly inspect?: ((event: InspectionEvent) => void) | Observer<InspectionEvent> | undefined;
  /** Decisions made in other processes are announced (PostgreSQL): waiting runs do not poll. */
  readonly decisionsAnnounced: boolean;
  /** Records a host's decision in the ledger; rejects with a one-line reason when refused. */
  readonly decide: (runId: string, callId: string, decision: HostApprovalDecision) => Promise<{ toolName: string }>;
  /** The session's scope closed: the runtime drops it. */
  readonly closed: (runId: string) => void;
}

export interface RunSessionOptions {
  readonly traceId?: string | undefined;
  readonly parentSpan?: Tracer.AnySpan | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly resume?: ResumePoint | undefined;
  /**
   * The actor of a host's statechart that invoked the run: the run actor becomes its child, in
   * the host's actor system, so the host's inspector shows the run under it.
   */
  readonly parent?: AnyActorRef | undefined;
}

export interface RunSession {
  readonly runId: string;
  readonly handle: RunHandle;
  /** Whether the run waits for a host's approval (it is parked, not cancelled, on shutdown). */
  readonly waitingForApproval: () => boolean;
  /** Reads the ledger for decisions on the calls that wait now (another process recorded one). */
  readonly readDecisions: () => void;
  /** Applies a decision already durable in the ledger to the live run. */
  readonly applyDecision: (callId: string, toolName: string, decision: HostApprovalDecision) => void;
  /** Closes the run's scope: stops it where it stands (its ledger keeps it open for a resume). */
  readonly close: () => Promise<void>;
}

type RunActor = Actor<typeof runMachine>;

export function openRunSession(settings: RunSettings, host: RunSessionHost, options: RunSessionOptions): RunSession {
  const { runId, provider, contract } = settings;
  const { managed } = host;
  const scope = managed.runSync(Scope.make());

  // The run's root span; its trace id is the run's trace id unless the host chose one.
  const observer = observeRun({
    runtime: managed,
    runId,
    sessionId: settings.sessionId,
    traceId: options.traceId,
    parentSpan: options.parentSpan,
    provider,
    contract,
    history: settings.history,
    toolsOffered: provider.capabilities.toolCalling
      ? settings.toolList.filter((tool) => settings.allowedTools.has(tool.name)).map((tool) => tool.name)
      : [],
    logging: host.logging,
    tracing: host.tracing || options.parentSpan !== undefined,
  });
  const { traceId } = observer;
  const transcript = makeTranscriptStore(settings.history);
  const approvals = new ApprovalDesk({
    runId,
    now: isoNow,
    tools: settings.tools,
    approval: settings.approval,
    sessionGrants: host.sessionGrants,
    approvalPollMs: settings.approvalPollMs,
    decisionsAnnounced: host.decisionsAnnounced,
  });
  const handlers = commandHandlers({
    runId,
    agentName: settings.agentName,
    provider,
    tools: settings.tools,
    allowedTools: settings.allowedTools,
    transcript,
    retry: settings.retry,
    defaultToolTimeoutMs: settings.defaultToolTimeoutMs,
    now: isoNow,
    receiptVerification: settings.receiptVerification,
    claimJudge: settings.claimJudge,
    approvals,
    payloadCapBytes: settings.payloadCapBytes,
  });
  const events = new EventStream<LoopEvent>();
  const { resume } = options;
  const actor: RunActor = createRunActor(
    { runtime: managed, handlers, observer, fibers: host.fibers },
    {
      id: runId,
      // A child reports to its host's inspector: XState inspects at the root of a system only.
      ...(options.parent ? { parent: options.parent } : host.inspect ? { inspect: host.inspect } : {}),
      input: {
        runId,
        traceId,
        sessionId: settings.sessionId,
        input: settings.input,
        contract,
        toolKinds: Object.fromEntries(settings.toolList.map((tool) => [tool.name, tool.kind])),
        maxSteps: settings.maxSteps,
        doomLoopThreshold: settings.doomLoopThreshold,
        maxProtocolRepairs: settings.maxProtocolRepairs,
        toolConcurrency: settings.toolConcurrency,
        locale: settings.locale,
        capabilities: provider.capabilities,
        receiptVerification: settings.receiptVerification,
        ...(resume
          ? { resume: { ...resume, rerun: resume.rerun.map((planned) => approvals.withApproval(planned)) } }
          : {}),
      },
    },
  );
  actor.on("*", (event) => {
    events.push(event as LoopEvent);
    if (event.type === "done") events.close();
  });
  // A run that already ended has nothing to cancel (XState would warn of an event to a stopped actor).
  const cancel = () => {
    if (actor.getSnapshot().status === "active") actor.send({ type: "CANCEL" });
  };
  const { signal } = options;
  signal?.addEventListener("abort", cancel, { once: true });
  managed.runSync(
    Scope.addFinalizer(
      scope,
      Effect.sync(() => {
        // First: nothing the actor asks for starts once the scope closes.
        signal?.removeEventListener("abort", cancel);
        stopRunActor(actor);
        events.close();
        host.registry.trigger.ended({ runId });
        host.closed(runId);
      }),
    ),
  );

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= managed.runPromise(Scope.close(scope, Exit.void));
    return closing;
  };
  // Resolves when the run reaches its final state. A run parked while it waits for approval never
  // does on this runtime: its ledger keeps it open for a resume.
  const reachedEnd = new Promise<AgentRunResult>((resolve, reject) => {
    actor.subscribe({
      complete: () => {
        const snapshot = actor.getSnapshot();
        if (snapshot.status === "done") resolve(snapshot.output);
      },
      error: reject,
    });
  });
  const result = observer.ended(reachedEnd).finally(close);
  host.registry.trigger.started({
    run: { runId, traceId, sessionId: settings.sessionId, startedAt: new Date().toISOString(), status: "running" },
  });
  actor.start();
  if (signal?.aborted) cancel();

  const decide = (callId: string, decision: HostApprovalDecision) =>
    host.decide(runId, callId, decision).then(({ toolName }) => applyDecision(callId, toolName, decision));
  const applyDecision = (callId: string, toolName: string, decision: HostApprovalDecision) =>
    approvals.decide(callId, toolName, decision);
  const handle: RunHandle = {
    runId,
    traceId,
    actor: runView(actor),
    events,
    result,
    transcript,
    cancel,
    trace: observer.trace,
    approve: (callId, approveOptions = {}) => decide(callId, approvedDecision(approveOptions)),
    waitingApprovals: () => {
      const batch = actor.getSnapshot().children.toolBatch?.getSnapshot();
      return batch?.status === "active" ? shownApprovalRequests(batch.context) : [];
    },
    deny: (callId, denyOptions = {}) => decide(callId, deniedDecision(denyOptions)),
  };
  return {
    runId,
    handle,
    waitingForApproval: () => actor.getSnapshot().hasTag(RUN_WAITING_FOR_APPROVAL),
    readDecisions: () => {
      managed.runFork(approvals.readDecisions());
    },
    applyDecision,
    close,
  };
}

/**
 * XState refuses `stop()` on an actor that has a parent, because a machine parent stops the
 * children it tracks. A run invoked by a host is the child of a callback actor, which tracks no
 * children: the run's own session still ends its lifetime, through the same internal stop the
 * parent would call.
 */
function stopRunActor(actor: RunActor): void {
  if (actor._parent === undefined) actor.stop();
  else (actor as unknown as { _stop(): void })._stop();
}
