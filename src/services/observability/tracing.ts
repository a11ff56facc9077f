import { Clock, Effect, Exit, type ManagedRuntime, Tracer } from "effect";
import { errorText } from "../../domain/errorText.js";
import type {
  AgentRunResult,
  CompletionContract,
  ContextMessage,
  LedgerEvent,
  LedgerWriteInput,
  PendingEvent,
  RunCommand,
  RunReply,
  ToolSettlement,
} from "../../domain/index.js";
import { AgentRunStore } from "../../persistence/AgentRunStore.js";
import { addEventFact, eventFacts, noEventFacts, runEndFacts } from "./ledgerMetrics.js";
import { recordRunEnded } from "./metrics.js";
import type { RunTrace } from "./runRoots.js";
import { SPAN } from "./spanNames.js";

/**
 * Spans and run logs. Every run gets a root span (`agent.run`) whose trace id
 * is the run's trace id; the Effects behind the run machine's actors (provider calls, tool calls,
 * ledger writes) run as its children, whichever actor runs them, because each is given the root
 * as its parent. Attribute names follow the OpenTelemetry GenAI conventions where one exists
 * (`gen_ai.*`), else `agentloop.*`. Spans go to whatever Tracer the runtime's layer installs:
 * Effect's built-in one by default (nothing exported), OpenTelemetry via `otelTracingLayer`.
 */

export { SPAN } from "./spanNames.js";

export interface RunObservationInit {
  readonly runtime: ManagedRuntime.ManagedRuntime<AgentRunStore, unknown>;
  readonly runId: string;
  readonly sessionId: string;
  /** A trace id the host chose (e.g. from an incoming request); default: the root span's own. */
  readonly traceId?: string | undefined;
  /** The host's span to hang the run under (its trace id then becomes the run's). */
  readonly parentSpan?: Tracer.AnySpan | undefined;
  readonly provider: { readonly id: string; readonly model: string; readonly apiFamily: string };
  readonly contract: CompletionContract;
  readonly history: ReadonlyArray<ContextMessage>;
  /** Tool schema names offered to the model. */
  readonly toolsOffered: ReadonlyArray<string>;
  /** Emit the run logs (the runtime's `logs` / `logger` config). */
  readonly logging: boolean;
  /** Make spans: the host configured a tracing layer or handed a parent span. Without, no span is made. */
  readonly tracing: boolean;
}

type Wrap = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>;

/** What the run's I/O bridge calls around each command's handler. */
export interface RunObserver {
  readonly traceId: string;
  readonly rootSpan: Tracer.Span | undefined;
  /** The root span and its tracer, for deliveries after the run (undefined without tracing). */
  readonly trace: RunTrace | undefined;
  /** The command's span (for the commands that have one), its log lines and metric facts. */
  readonly command: (command: RunCommand) => Wrap;
  /** Settles with the run: metrics, the final log line, the root span's end. Never changes the result. */
  readonly ended: (result: Promise<AgentRunResult>) => Promise<AgentRunResult>;
}

const identity: Wrap = (effect) => effect;

/** For wiring without observability (tests of the I/O alone): every command passes through. */
export const passthroughObserver = (traceId = ""): RunObserver => ({
  traceId,
  rootSpan: undefined,
  trace: undefined,
  command: () => identity,
  ended: (result) => result,
});

type CommandOf<K extends RunCommand["type"]> = Extract<RunCommand, { type: K }>;

/** What a command's span may do around its handler: log before, note and annotate after. */
interface Observation {
  readonly log: (message: string, fields: Record<string, unknown>) => Effect.Effect<void>;
  readonly annotate: (attributes: Record<string, unknown>) => Effect.Effect<void>;
  readonly noteWritten: (events: ReadonlyArray<Pick<PendingEvent, "type" | "payload">>) => Effect.Effect<void>;
  readonly started: Effect.Effect<void>;
}

interface CommandSpan<K extends RunCommand["type"]> {
  readonly name: string;
  readonly kind?: Tracer.SpanKind;
  readonly attributes: (command: CommandOf<K>) => Record<string, unknown>;
  readonly before?: (command: CommandOf<K>, observation: Observation) => Effect.Effect<void>;
  /** Called with the handler's answer (a RunReply or, for EXECUTE, the batch's CALL_SETTLED). */
  readonly after?: (command: CommandOf<K>, reply: unknown, observation: Observation) => Effect.Effect<void>;
}

const stepOf = (events: ReadonlyArray<PendingEvent>): Record<string, unknown> => {
  for (const event of events) {
    const step = (event.payload as { step?: unknown } | null)?.step;
    if (typeof step === "number") return { "agentloop.step": step };
  }
  return {};
};

const isReply = <T extends RunReply["type"]>(reply: unknown, type: T): reply is Extract<RunReply, { type: T }> =>
  (reply as { type?: unknown } | undefined)?.type === type;

const appendSpan = <K extends "RECORD_CALLS" | "RECORD_TURN">(): CommandSpan<K> => ({
  name: SPAN.append,
  attributes: ({ events }: LedgerWriteInput) => ({ ...stepOf(events), "agentloop.ledger.rows": events.length }),
  after: ({ events }: LedgerWriteInput, reply, { noteWritten }) =>
    isReply(reply, "LEDGER_FAILED") ? Effect.void : noteWritten(events),
});

/** The commands that make a span, with their attributes and what they log: the rest pass through. */
const COMMAND_SPANS: { readonly [K in RunCommand["type"]]?: CommandSpan<K> } = {
  OPEN: {
    name: SPAN.open,
    attributes: () => ({}),
    before: (_command, { started }) => started,
  },
  SAMPLE: {
    name: SPAN.provider,
    kind: "client",
    attributes: (command) => ({ "gen_ai.operation.name": "chat", "agentloop.step": command.step }),
    after: (command, reply, { annotate, log }) => {
      if (!isReply(reply, "SAMPLED")) return Effect.void;
      const { outcome } = reply;
      return outcome.type === "response"
        ? Effect.zipRight(
            annotate({
              // An array, as the GenAI conventions say (the OTel bridge exports it JSON-encoded).
              "gen_ai.response.finish_reasons": [outcome.finishReason],
              "agentloop.tool_calls.parsed": outcome.calls.length,
              "agentloop.tool_calls.malformed": outcome.malformed.length,
              "agentloop.anomalies": outcome.anomalies.map((anomaly) => anomaly.code),
              ...(outcome.usage
                ? {
                    "gen_ai.usage.input_tokens": outcome.usage.inputTokens,
                    "gen_ai.usage.output_tokens": outcome.usage.outputTokens,
                  }
                : {}),
            }),
            log("provider.response", {
              step: command.step,
              finishReason: outcome.finishReason,
              parsedToolCalls: outcome.calls.length,
              toolNames: outcome.calls.map((planned) => planned.call.name),
              malformedToolCalls: outcome.malformed.length,
              anomalies: outcome.anomalies.map((anomaly) => anomaly.code),
              textChars: outcome.text.length,
              streamed: outcome.streamed,
            }),
          )
        : Effect.zipRight(
            annotate({ "error.type": outcome.reason }),
            log("provider.failure", { step: command.step, reason: outcome.reason, detail: outcome.message }),
          );
    },
  },
  EXECUTE: {
    name: SPAN.tool,
    attributes: (command) => ({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": command.planned.call.name,
      "gen_ai.tool.call.id": command.planned.call.id,
      "agentloop.step": command.step,
    }),
    after: (_command, reply, { annotate }) => {
      const result = (reply as { result?: { status: string; reason?: string } } | undefined)?.result;
      return result
        ? annotate({
            "agentloop.tool.status": result.status,
            ...(result.reason ? { "error.type": result.reason } : {}),
          })
        : Effect.void;
    },
  },
  RECORD_CALLS: appendSpan(),
  RECORD_TURN: appendSpan(),
  RECORD_RESULTS: {
    name: SPAN.toolResults,
    attributes: (command) => ({ "agentloop.step": command.step, "agentloop.ledger.rows": command.settlements.length }),
    after: (command, reply, { log }) =>
      isReply(reply, "LEDGER_FAILED")
        ? Effect.void
        : Effect.forEach(
            command.settlements,
            (settlement) => log("tool.result", settlementLog(command.step, settlement)),
            {
              discard: true,
            },
          ),
  },
  FINISH: {
    name: SPAN.finish,
    attributes: (command) => ({
      "agentloop.step": command.terminal.steps,
      "agentloop.terminal_state": command.terminal.terminalState,
      "agentloop.terminal_reason": command.terminal.reason,
    }),
    after: (command, reply, { log, noteWritten }) =>
      isReply(reply, "LEDGER_FAILED")
        ? Effect.void
        : Effect.zipRight(
            noteWritten([...command.events, { type: "terminal", payload: command.terminal }]),
            Effect.forEach(
              command.unsettled,
              (planned) =>
                log("tool.result", {
                  step: command.terminal.steps,
                  callId: planned.call.id,
                  toolName: planned.call.name,
                  status: "cancelled",
                  reason: command.terminal.reason === "cancelled_by_user" ? "cancelled_by_user" : "interrupted",
                }),
              { discard: true },
            ),
          ),
  },
};

const randomHex = (bytes: number) =>
  Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (byte) => byte.toString(16).padStart(2, "0")).join("");

/** Message counts by role and whether a system prompt is present: the run's context sources. */
export function contextSources(history: ReadonlyArray<ContextMessage>) {
  const byRole: Record<string, number> = {};
  for (const message of history) byRole[message.role] = (byRole[message.role] ?? 0) + 1;
  return { historyMessages: history.length, byRole, systemPrompt: (byRole.system ?? 0) > 0 };
}

const settlementLog = (step: number, settlement: ToolSettlement) => ({
  step,
  callId: settlement.callId,
  toolName: settlement.toolName,
  status: settlement.status,
  ...(settlement.reason ? { reason: settlement.reason } : {}),
});

/** Each runtime's tracer, looked up once (its layer is fixed when the runtime is built). */
const tracers = new WeakMap<object, Tracer.Tracer>();
function tracerOf(runtime: ManagedRuntime.ManagedRuntime<AgentRunStore, unknown>): Tracer.Tracer {
  const known = tracers.get(runtime);
  if (known) return known;
  const tracer = runtime.runSync(Effect.tracer);
  tracers.set(runtime, tracer);
  return tracer;
}

/**
 * Starts a run's observation: opens its root span (on the runtime's tracer) and returns the
 * wrappers its actors use. Called by `AgentRuntime.startRun` before the actor starts.
 */
export function observeRun(init: RunObservationInit): RunObserver {
  const { runtime } = init;
  const started = Date.now();
  const base = {
    "agentloop.run.id": init.runId,
    "agentloop.session.id": init.sessionId,
    "gen_ai.system": init.provider.id,
    "gen_ai.provider.name": init.provider.id,
    "gen_ai.request.model": init.provider.model,
    "gen_ai.conversation.id": init.sessionId,
  };
  let rootSpan: Tracer.Span | undefined;
  let trace: RunTrace | undefined;
  let traceId: string;
  if (init.tracing) {
    // A host-chosen trace id without a host span: the root hangs under a remote parent of that trace.
    const parent: Tracer.AnySpan | undefined =
      init.parentSpan ??
      (init.traceId ? Tracer.externalSpan({ traceId: init.traceId, spanId: randomHex(8), sampled: true }) : undefined);
    const makeRoot = Effect.makeSpan(SPAN.run, {
      ...(parent ? { parent } : { root: true }),
      kind: "internal",
      captureStackTrace: false,
      attributes: {
        ...base,
        "gen_ai.operation.name": "invoke_agent",
        "agentloop.api_family": init.provider.apiFamily,
        "agentloop.contract.evidence_mode": init.contract.evidenceMode,
      },
    });
    // On the runtime's tracer (AgentRuntime.make builds the runtime before any run starts).
    const span = runtime.runSync(makeRoot);
    traceId = init.traceId ?? span.traceId;
    span.attribute("agentloop.trace.id", traceId);
    rootSpan = span;
    trace = { span, tracer: tracerOf(runtime) };
  } else {
    // No tracing configured: no spans (they cost a quarter of a step), the same kind of trace id.
    traceId = init.traceId ?? init.parentSpan?.traceId ?? randomHex(16);
  }

  const logAnnotations = {
    runId: init.runId,
    traceId,
    sessionId: init.sessionId,
    provider: init.provider.id,
    model: init.provider.model,
  };
  const log = (message: string, fields: Record<string, unknown>) =>
    init.logging ? Effect.annotateLogs(Effect.logInfo(message), { ...logAnnotations, ...fields }) : Effect.void;

  const annotated: Wrap = (effect) => (init.logging ? Effect.annotateLogs(effect, logAnnotations) : effect);
  const span = (name: string, attributes: Record<string, unknown> = {}, kind: Tracer.SpanKind = "internal"): Wrap =>
    rootSpan === undefined
      ? annotated
      : (effect) =>
          annotated(effect).pipe(
            // Without a captured stack: the run's spans are on every step's path, and the trace
            // already says which actor made each one.
            Effect.withSpan(name, {
              parent: rootSpan,
              kind,
              attributes: { ...base, ...attributes },
              captureStackTrace: false,
            }),
          );

  // The metrics' ledger facts, from the rows this run's writes committed (same fold as the CLI's).
  const written = noEventFacts();
  const observation: Observation = {
    log,
    annotate: (attributes) => (rootSpan === undefined ? Effect.void : Effect.annotateCurrentSpan(attributes)),
    noteWritten: (events) =>
      Effect.sync(() => {
        for (const event of events) addEventFact(written, event as Pick<LedgerEvent, "type" | "payload">);
      }),
    started: log("run.started", {
      apiFamily: init.provider.apiFamily,
      contract: {
        evidenceMode: init.contract.evidenceMode,
        requiredToolNames: init.contract.requiredToolNames,
        source: init.contract.source,
      },
      contextSources: contextSources(init.history),
      toolsOffered: init.toolsOffered,
    }),
  };

  const command =
    (command: RunCommand): Wrap =>
    (effect) => {
      const spec = COMMAND_SPANS[command.type] as CommandSpan<RunCommand["type"]> | undefined;
      if (!spec) return annotated(effect);
      const observed = Effect.zipRight(
        spec.before?.(command, observation) ?? Effect.void,
        Effect.tap(effect, (reply) => spec.after?.(command, reply, observation) ?? Effect.void),
      );
      return observed.pipe(span(spec.name, spec.attributes(command), spec.kind));
    };

  const observer: RunObserver = {
    traceId,
    rootSpan,
    trace,
    command,
    ended: async (pending) => {
      let result: AgentRunResult;
      try {
        result = await pending;
      } catch (error) {
        await runtime
          .runPromise(
            Effect.gen(function* () {
              yield* log("run.crashed", { error: errorText(error) });
              rootSpan?.end(yield* Clock.currentTimeNanos, Exit.die(error));
            }),
          )
          .catch(() => undefined);
        throw error;
      }
      await runtime
        .runPromise(
          Effect.gen(function* () {
            // After a failed write the fallback close may have written other rows than the run
            // asked for: then the ledger itself is read.
            const ledger =
              written.terminal && result.terminalReason !== "ledger_write_failed"
                ? written
                : eventFacts(
                    yield* Effect.flatMap(AgentRunStore, (store) => store.listRunEvents(init.runId)).pipe(
                      Effect.orElseSucceed(() => []),
                    ),
                  );
            const durationSeconds = (Date.now() - started) / 1000;
            const facts = runEndFacts({
              terminalState: result.terminalState,
              reason: result.terminalReason,
              steps: result.steps,
              correctionTurns: result.correctionTurns,
              verification: ledger.terminal?.verification,
              evidenceMode: init.contract.evidenceMode,
              toolCalls: ledger.toolCalls,
              protocolInvalid: ledger.protocolInvalid,
              durationSeconds,
            });
            yield* recordRunEnded(facts);
            const receipts: Record<string, number> = {};
            for (const receipt of result.receipts) receipts[receipt.status] = (receipts[receipt.status] ?? 0) + 1;
            yield* log("run.ended", {
              terminalState: result.terminalState,
              reason: result.terminalReason,
              steps: result.steps,
              correctionTurns: result.correctionTurns,
              toolCalls: facts.toolCalls,
              protocolInvalidAnomalies: facts.protocolInvalid,
              receipts,
              ...(ledger.terminal?.verification ? { verification: ledger.terminal.verification } : {}),
              durationMs: Math.round(durationSeconds * 1000),
            });
            if (rootSpan) {
              rootSpan.attribute("agentloop.terminal_state", result.terminalState);
              rootSpan.attribute("agentloop.terminal_reason", result.terminalReason);
              rootSpan.attribute("agentloop.steps", result.steps);
              rootSpan.end(
                yield* Clock.currentTimeNanos,
                result.terminalState === "failed" ? Exit.fail(`failed: ${result.terminalReason}`) : Exit.void,
              );
            }
          }).pipe(Effect.annotateLogs(logAnnotations), rootSpan ? Effect.withParentSpan(rootSpan) : (effect) => effect),
        )
        .catch(() => undefined);
      return result;
    },
  };
  return observer;
}
