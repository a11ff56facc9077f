import { randomFillSync } from "node:crypto";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import type * as ManagedRuntime from "effect/ManagedRuntime";
import * as Tracer from "effect/Tracer";
import { errorText } from "../../domain/errorText.js";
import type {
  AgentRunResult,
  CompletionContract,
  ContextMessage,
  LedgerEvent,
  RunCommand,
} from "../../domain/index.js";
import { AgentRunStore } from "../../persistence/AgentRunStore.js";
import { COMMAND_SPANS, type CommandSpan, type Observation } from "./commandSpans.js";
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

/**
 * Random bytes as hex, taken from a pool filled 4 KiB at a time (as `randomUUID` does): each run
 * needs a trace id, and `randomBytes` per id cost tens of µs at a run's start in a busy process.
 * Every byte is handed out once; the generator is the same. (Exported for its tests.)
 */
const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let pooled = POOL_BYTES;
export function randomHex(bytes: number): string {
  if (pooled + bytes > POOL_BYTES) {
    randomFillSync(pool);
    pooled = 0;
  }
  const hex = pool.toString("hex", pooled, pooled + bytes);
  pooled += bytes;
  return hex;
}

/** Message counts by role and whether a system prompt is present: the run's context sources. */
export function contextSources(history: ReadonlyArray<ContextMessage>) {
  const byRole: Record<string, number> = {};
  for (const message of history) byRole[message.role] = (byRole[message.role] ?? 0) + 1;
  return { historyMessages: history.length, byRole, systemPrompt: (byRole.system ?? 0) > 0 };
}

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

  // Without spans and logs a command's observation comes down to its metric facts: nothing else
  // is wrapped around the handler (each wrapper is work on every command of every step).
  const quiet = rootSpan === undefined && !init.logging;
  const command =
    (command: RunCommand): Wrap =>
    (effect) => {
      const spec = COMMAND_SPANS[command.type] as CommandSpan<RunCommand["type"]> | undefined;
      if (!spec) return annotated(effect);
      const noted =
        spec.written === undefined
          ? effect
          : Effect.map(effect, (reply) => {
              const rows = spec.written!(command, reply);
              if (rows !== undefined)
                for (const row of rows) addEventFact(written, row as Pick<LedgerEvent, "type" | "payload">);
              return reply;
            });
      if (quiet) return noted;
      const observed = Effect.zipRight(
        spec.before?.(command, observation) ?? Effect.void,
        Effect.tap(noted, (reply) => spec.after?.(command, reply, observation) ?? Effect.void),
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
            // Annotated only when it logs: the annotations are a FiberRef update (and a comparison of
            // two hash maps) at the end of every run.
          }).pipe(annotated, rootSpan ? Effect.withParentSpan(rootSpan) : (effect) => effect),
        )
        .catch(() => undefined);
      return result;
    },
  };
  return observer;
}
