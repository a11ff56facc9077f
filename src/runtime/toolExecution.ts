import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import { errorText } from "../domain/errorText.js";
import type { ExecutorResult, JsonValue, RunCommand } from "../domain/index.js";
import {
  AgentRunStore,
  type AgentRunStoreShape,
  type LedgerError,
  type ToolStart,
} from "../persistence/AgentRunStore.js";
import { toolProcessLog } from "../services/processes/processLedger.js";
import { invokeTool } from "../services/tools/invokeTool.js";
import { type AnyToolDefinition, mayRepeat } from "../services/tools/Tool.js";

/** What a run remembers of its calls for the receipts of calls that never report (closing receipts). */
export interface CallBook {
  /** When each call started (its start record is durable). */
  readonly startedAt: Map<string, string>;
  /** What each call noted while it ran (an MCP call's server and request id). */
  readonly notedEvidence: Map<string, Record<string, JsonValue>>;
}

export const callBook = (): CallBook => ({ startedAt: new Map(), notedEvidence: new Map() });

/**
 * A call's abort signal, made when the tool first reads it: most tools never do, and an
 * AbortController per call was a measurable share of a step. Aborted before it is read, the
 * signal it then gives is already aborted.
 */
export class LazyAbort {
  private controller: AbortController | undefined;
  private aborted = false;

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort();
    }
    return this.controller.signal;
  }

  abort(): void {
    this.aborted = true;
    this.controller?.abort();
  }
}

export interface ExecutionDeps {
  readonly tools: ReadonlyMap<string, AnyToolDefinition>;
  readonly now: () => string;
  readonly calls: CallBook;
  /** Writes the start records (with any rows the run's ledger writes hold for them). */
  readonly startCalls: (
    runId: string,
    starts: ReadonlyArray<ToolStart>,
  ) => Effect.Effect<void, LedgerError, AgentRunStore>;
}

/**
 * The call's start record is written — fenced by the run's lease — before the executor is
 * invoked, and `onStarted` hears of it only then. A refused start (the lease moved or expired,
 * or the ledger is out of reach) means the executor is never invoked: the call settles
 * `cancelled` / `start_refused`, and whoever drives the run now finds it never started.
 */
export const executeCall = (
  deps: ExecutionDeps,
  command: Extract<RunCommand, { type: "EXECUTE" }>,
  abort: LazyAbort,
  onStarted: (startedAt: string) => void,
): Effect.Effect<ExecutorResult, never, AgentRunStore> => {
  const { call } = command.planned;
  const tool = deps.tools.get(call.name)!;
  const invoke = (startedAt: string, store: AgentRunStoreShape) =>
    invokeTool(tool, call.arguments, {
      runId: command.runId,
      callId: call.id,
      step: command.step,
      get signal() {
        return abort.signal;
      },
      noteEvidence: (evidence) =>
        deps.calls.notedEvidence.set(call.id, { ...deps.calls.notedEvidence.get(call.id), ...evidence }),
      processes: toolProcessLog(store, command.runId, call.id, deps.now),
    }).pipe(
      Effect.map((invocation): ExecutorResult => {
        if (invocation.kind === "invalid_arguments") {
          return {
            status: "error",
            reason: "invalid_arguments",
            output: { error: invocation.problem },
            evidence: {},
            startedAt,
            finishedAt: deps.now(),
          };
        }
        const { result } = invocation;
        return {
          status: result.status,
          ...(result.status === "error" ? { reason: "tool_error" as const } : {}),
          output: result.output,
          evidence: { ...(result.evidence ?? {}) },
          startedAt,
          finishedAt: deps.now(),
        };
      }),
      Effect.catchAllCause((cause) =>
        Cause.isInterruptedOnly(cause)
          ? Effect.interrupt
          : Effect.succeed<ExecutorResult>({
              status: "error",
              reason: "tool_threw",
              output: { error: errorText(Cause.squash(cause)) },
              evidence: {},
              startedAt,
              finishedAt: deps.now(),
            }),
      ),
    );
  return Effect.gen(function* () {
    const store = yield* AgentRunStore;
    const startedAt = deps.now();
    const recorded = yield* Effect.either(
      deps.startCalls(command.runId, [{ callId: call.id, toolName: call.name, mayRepeat: mayRepeat(tool), startedAt }]),
    );
    if (recorded._tag === "Left") {
      const refusedAt = deps.now();
      return {
        status: "cancelled",
        reason: "start_refused",
        output: { error: `the call was not started: ${recorded.left.message}` },
        evidence: { started: false, refusal: recorded.left.reason },
        startedAt: refusedAt,
        finishedAt: refusedAt,
      } satisfies ExecutorResult;
    }
    deps.calls.startedAt.set(call.id, startedAt);
    onStarted(startedAt);
    return yield* invoke(startedAt, store);
  });
};
