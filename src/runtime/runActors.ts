import { Cause, Effect, Exit, type ManagedRuntime } from "effect";
import type {
  ContextMessage,
  ExecutionReceipt,
  ExecutorResult,
  JsonValue,
  PlannedCall,
  ToolSettlement,
  VerificationStatus,
} from "../domain/index.js";
import { hasEvidence, MUTATION_EVIDENCE_KEYS, STABLE_ID_KEYS } from "../domain/index.js";
import type {
  FinishRunInput,
  FinishRunOutput,
  LedgerWriteInput,
  LedgerWriteOutput,
  OpenRunInput,
  PendingEvent,
  ReceiptVerificationMode,
  SampleInput,
  SampleOutcome,
  ToolResultsInput,
  ToolResultsOutput,
  Verdict,
  VerifyInput,
} from "../machines/protocol.js";
import type { ExecuteToolInput } from "../machines/toolCall.machine.js";
import { AgentRunStore, type EventToAppend } from "../persistence/AgentRunStore.js";
import { passthroughObserver, type RunObserver } from "../services/observability/tracing.js"; // [observability]
import type { Provider } from "../services/providers/Provider.js";
import { type RetryPolicy, withProviderRetry } from "../services/providers/retry.js";
import { planCalls } from "../services/tools/callPlanner.js";
import { canonicalJson, sha256 } from "../services/tools/fingerprint.js";
import { invokeTool } from "../services/tools/invokeTool.js";
import { type AnyToolDefinition, describeTool } from "../services/tools/Tool.js";
import { callIdsOf } from "../services/transcriptProjector.js";
import { verifyAnswer } from "../services/verification.js";
import type { TranscriptStore } from "./stores.js";

/**
 * Runs an Effect for an XState actor. With `signal`, leaving the state aborts it, which interrupts
 * the fiber; ledger writes pass none — they are synchronous transactions, over before any abort.
 */
export function runForActor<A, E, R>(
  runtime: ManagedRuntime.ManagedRuntime<R, never>,
  effect: Effect.Effect<A, E, R>,
  signal?: AbortSignal,
): Promise<A> {
  return runtime.runPromiseExit(effect, signal ? { signal } : undefined).then((exit) => {
    if (Exit.isSuccess(exit)) return exit.value;
    throw Cause.squash(exit.cause);
  });
}

export interface RunWiring {
  readonly runtime: ManagedRuntime.ManagedRuntime<AgentRunStore, never>;
  readonly runId: string;
  readonly provider: Provider;
  readonly tools: ReadonlyMap<string, AnyToolDefinition>;
  readonly allowedTools: ReadonlySet<string>;
  readonly transcript: TranscriptStore;
  readonly retry: RetryPolicy;
  readonly defaultToolTimeoutMs: number;
  readonly now: () => string;
  readonly receiptVerification: ReceiptVerificationMode;
  /** When each call started, for receipts of calls that never reported (timeouts). */
  readonly callStartedAt: Map<string, string>;
  /** [observability] Spans (children of the run's root span) and run logs around each actor's Effect. */
  readonly observer?: RunObserver;
}

function withSequences(events: ReadonlyArray<PendingEvent>, firstSequence: number): EventToAppend[] {
  return events.map((event, index) => ({ sequence: firstSequence + index, type: event.type, payload: event.payload }));
}

function outputText(output: JsonValue): string {
  return typeof output === "string" ? output : JSON.stringify(output);
}

function verificationOf(settlement: ToolSettlement, tool: AnyToolDefinition | undefined): VerificationStatus {
  if (settlement.status !== "ok") return "unverified";
  const receiptLike = { evidence: settlement.evidence } as ExecutionReceipt;
  if (tool?.kind === "deliver") return hasEvidence(receiptLike, STABLE_ID_KEYS) ? "verified" : "partial";
  if (tool?.kind === "mutate") return hasEvidence(receiptLike, MUTATION_EVIDENCE_KEYS) ? "verified" : "partial";
  return "verified";
}

/** The I/O behind the run machine's actors, for one run. */
export function runOperations(wiring: RunWiring) {
  const { runtime, transcript } = wiring;
  const descriptors = wiring.provider.capabilities.toolCalling
    ? [...wiring.tools.values()].filter((tool) => wiring.allowedTools.has(tool.name)).map(describeTool)
    : [];
  // A new call may not reuse an id the replayed history holds (providers that number their calls
  // repeat ids from turn to turn): planCalls renames such a call `<id>_<n>`.
  const usedCallIds = callIdsOf(transcript.getSnapshot().context.messages);
  // Built once per run, not once per sampling step.
  const retry = withProviderRetry(wiring.retry);
  const observe = wiring.observer ?? passthroughObserver(); // [observability]

  const append = (messages: ReadonlyArray<ContextMessage>) => transcript.trigger.append({ messages });

  const openRun = (input: OpenRunInput): Promise<LedgerWriteOutput> =>
    runForActor(
      runtime,
      Effect.gen(function* () {
        const store = yield* AgentRunStore;
        yield* store.createRun(
          {
            runId: input.runId,
            sessionId: input.sessionId,
            traceId: input.traceId,
            contract: input.contract,
            providerId: wiring.provider.id,
            model: wiring.provider.model,
            apiFamily: wiring.provider.apiFamily,
          },
          [{ sequence: 1, type: "user_input", payload: { text: input.input, origin: "user" } }],
        );
        append([{ role: "user", content: input.input }]);
        return { lastSequence: 1 };
      }).pipe(observe.open), // [observability]
    );

  const sampleModel = (input: SampleInput, signal: AbortSignal): Promise<SampleOutcome> =>
    runForActor(
      runtime,
      wiring.provider
        .sample({
          runId: input.runId,
          step: input.step,
          messages: transcript.getSnapshot().context.messages,
          tools: descriptors,
          toolChoice: descriptors.length > 0 ? input.toolChoice : { mode: "none" },
        })
        .pipe(
          retry,
          Effect.map(
            (response): SampleOutcome => ({
              type: "response",
              text: response.text,
              finishReason: response.finishReason,
              malformed: response.malformedToolCalls,
              anomalies: response.anomalies,
              streamed: response.streamed,
              ...(response.usage ? { usage: response.usage } : {}),
              calls: planCalls(response.toolCalls, {
                tools: wiring.tools,
                allowed: wiring.allowedTools,
                defaultTimeoutMs: wiring.defaultToolTimeoutMs,
                usedCallIds,
              }),
            }),
          ),
          Effect.catchAll((error) =>
            Effect.succeed<SampleOutcome>({
              type: "failure",
              reason: error.reason === "script_exhausted" ? "script_exhausted" : "provider_error",
              message: error.message,
            }),
          ),
          observe.sample(input.step), // [observability]
        ),
      signal,
    );

  const appendLedger = (input: LedgerWriteInput): Promise<LedgerWriteOutput> =>
    runForActor(
      runtime,
      Effect.gen(function* () {
        const store = yield* AgentRunStore;
        yield* store.appendEvents(input.runId, withSequences(input.events, input.firstSequence));
        append(input.transcript);
        return { lastSequence: input.firstSequence + input.events.length - 1 };
      }).pipe(observe.append(input)), // [observability]
    );

  const executeTool = (input: ExecuteToolInput, signal: AbortSignal): Promise<ExecutorResult> => {
    const { call } = input.planned;
    const tool = wiring.tools.get(call.name)!;
    const startedAt = wiring.now();
    wiring.callStartedAt.set(call.id, startedAt);
    const execution = invokeTool(tool, call.arguments, {
      runId: input.runId,
      callId: call.id,
      step: input.step,
      signal,
    }).pipe(
      Effect.map((invocation): ExecutorResult => {
        if (invocation.kind === "invalid_arguments") {
          return {
            status: "error",
            reason: "invalid_arguments",
            output: { error: invocation.problem },
            evidence: {},
            startedAt,
            finishedAt: wiring.now(),
          };
        }
        const { result } = invocation;
        return {
          status: result.status,
          ...(result.status === "error" ? { reason: "tool_error" as const } : {}),
          output: result.output,
          evidence: { ...(result.evidence ?? {}) },
          startedAt,
          finishedAt: wiring.now(),
        };
      }),
      Effect.catchAllCause((cause) =>
        Cause.isInterruptedOnly(cause)
          ? Effect.failCause(cause)
          : Effect.succeed<ExecutorResult>({
              status: "error",
              reason: "tool_threw",
              output: {
                error: String(
                  Cause.squash(cause) instanceof Error ? (Cause.squash(cause) as Error).message : Cause.squash(cause),
                ),
              },
              evidence: {},
              startedAt,
              finishedAt: wiring.now(),
            }),
      ),
    );
    const traced = execution.pipe(observe.tool({ step: input.step, callId: call.id, toolName: call.name })); // [observability]
    return runForActor(runtime, traced, signal);
  };

  const toReceipt = (runId: string, settlement: ToolSettlement, finishedAt: string): ExecutionReceipt => {
    const outputJson = canonicalJson(settlement.output);
    return {
      receiptId: `${runId}:${settlement.callId}`,
      runId,
      callId: settlement.callId,
      toolName: settlement.toolName,
      status: settlement.status,
      ...(settlement.reason ? { reason: settlement.reason } : {}),
      startedAt: settlement.startedAt ?? wiring.callStartedAt.get(settlement.callId) ?? finishedAt,
      finishedAt: settlement.finishedAt ?? finishedAt,
      inputFingerprint: settlement.inputFingerprint,
      evidence: {
        ...settlement.evidence,
        output_sha256: sha256(outputJson),
        output_bytes: Buffer.byteLength(outputJson),
      },
      verificationStatus: verificationOf(settlement, wiring.tools.get(settlement.toolName)),
    };
  };

  /** Result rows, receipts and transcript messages for settled calls. */
  const resultRecords = (
    runId: string,
    step: number,
    settlements: ReadonlyArray<ToolSettlement>,
    firstSequence: number,
  ) => {
    const finishedAt = wiring.now();
    const receipts = settlements.map((settlement) => toReceipt(runId, settlement, finishedAt));
    const events: EventToAppend[] = settlements.map((settlement, index) => ({
      sequence: firstSequence + index,
      type: "tool_result",
      payload: {
        step,
        callId: settlement.callId,
        toolName: settlement.toolName,
        status: settlement.status,
        output: settlement.output,
        outputHash: receipts[index]!.evidence.output_sha256 as string,
      },
    }));
    const messages: ContextMessage[] = settlements.map((settlement) => ({
      role: "tool",
      callId: settlement.callId,
      toolName: settlement.toolName,
      isError: settlement.status !== "ok",
      content:
        settlement.status === "ok"
          ? outputText(settlement.output)
          : `${settlement.status}${settlement.reason ? ` (${settlement.reason})` : ""}: ${outputText(settlement.output)}`,
    }));
    return { receipts, events, messages };
  };

  const recordToolResults = (input: ToolResultsInput): Promise<ToolResultsOutput> =>
    runForActor(
      runtime,
      Effect.gen(function* () {
        const store = yield* AgentRunStore;
        const records = resultRecords(input.runId, input.step, input.settlements, input.firstSequence);
        yield* store.appendEvents(input.runId, records.events, records.receipts);
        append(records.messages);
        return {
          lastSequence: input.firstSequence + records.events.length - 1,
          receipts: records.receipts,
          resultHashes: records.receipts.map((receipt) => receipt.evidence.output_sha256 as string),
        };
      }).pipe(observe.toolResults(input)), // [observability]
    );

  const verify = async (input: VerifyInput): Promise<Verdict> =>
    wiring.receiptVerification === "off"
      ? { verdict: "completed", reason: "answered", missing: [] }
      : verifyAnswer({ ...input, capabilities: wiring.provider.capabilities });

  /**
   * A call of the current step that never got a recorded result. Only a user's cancel may call
   * it `cancelled_by_user`; otherwise (a ledger write failed, the batch crashed) the call may have
   * run and its side effects are unknown: `interrupted`, as start-up recovery says.
   */
  const unsettledSettlement =
    (terminal: FinishRunInput["terminal"]) =>
    (planned: PlannedCall): ToolSettlement => ({
      callId: planned.call.id,
      toolName: planned.call.name,
      inputFingerprint: planned.inputFingerprint,
      status: "cancelled",
      reason: terminal.reason === "cancelled_by_user" ? "cancelled_by_user" : "interrupted",
      output: { error: "the run ended before this call reported" },
      evidence: {},
      startedAt: null,
      finishedAt: null,
    });

  /**
   * After a ledger write failed, the rows that should have landed with the terminal may be the
   * very rows the ledger refuses. Closes the run the way start-up recovery does: receipts for the
   * step's calls whose tool_call row is durable but that have no receipt, then the terminal.
   */
  const closeAfterLedgerFailure = (input: FinishRunInput) =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      const events = yield* store.listRunEvents(input.runId);
      const receipted = new Set((yield* store.listReceipts(input.runId)).map((receipt) => receipt.callId));
      const called = new Set(
        events
          .filter((event) => event.type === "tool_call")
          .map((event) => (event.payload as { callId?: string }).callId),
      );
      const finishedAt = wiring.now();
      const receipts = input.unsettled
        .filter((planned) => called.has(planned.call.id) && !receipted.has(planned.call.id))
        .map((planned) => toReceipt(input.runId, unsettledSettlement(input.terminal)(planned), finishedAt));
      const sequence = (events[events.length - 1]?.sequence ?? 0) + 1;
      yield* store.finishRun(input.runId, {
        sequence,
        receipts,
        terminal: input.terminal,
        failureDetail: input.detail,
      });
      return { lastSequence: sequence, receipts };
    });

  const finishRun = (input: FinishRunInput): Promise<FinishRunOutput> =>
    // Not interruptible by the run: the terminal row must land once decided.
    runForActor(
      runtime,
      Effect.gen(function* () {
        const store = yield* AgentRunStore;
        const leading = withSequences(input.events, input.firstSequence);
        const unsettled = resultRecords(
          input.runId,
          Math.max(1, input.terminal.steps),
          input.unsettled.map(unsettledSettlement(input.terminal)),
          input.firstSequence + leading.length,
        );
        const events = [...leading, ...unsettled.events];
        const sequence = input.firstSequence + events.length;
        yield* store.finishRun(input.runId, {
          sequence,
          events,
          receipts: unsettled.receipts,
          terminal: input.terminal,
          failureDetail: input.detail,
        });
        append([...input.transcript, ...unsettled.messages]);
        return { lastSequence: sequence, receipts: unsettled.receipts };
      }).pipe(
        Effect.catchAll((error) =>
          input.terminal.reason === "ledger_write_failed" ? closeAfterLedgerFailure(input) : Effect.fail(error),
        ),
        observe.finish(input), // [observability]
      ),
    );

  return { openRun, sampleModel, appendLedger, executeTool, recordToolResults, verifyAnswer: verify, finishRun };
}
