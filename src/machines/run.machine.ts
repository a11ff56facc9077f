import { assign, emit, enqueueActions, fromPromise, sendTo, setup } from "xstate";
import {
  type AgentRunResult,
  CORRECTION_MESSAGE,
  type CompletionContract,
  type ContextMessage,
  type ExecutionReceipt,
  evidenceGap,
  finalMessage,
  type Locale,
  type LoopEvent,
  type PlannedCall,
  type ProviderCapabilities,
  type TerminalState,
  type ToolKind,
  type ToolSettlement,
} from "../domain/index.js";
import { isDoomLoop } from "./loopGuards.js";
import type {
  CallFingerprint,
  FinishRunInput,
  FinishRunOutput,
  LedgerWriteInput,
  LedgerWriteOutput,
  OpenRunInput,
  Outcome,
  PendingEvent,
  ReceiptVerificationMode,
  SampleInput,
  SampleOutcome,
  ToolResultsInput,
  ToolResultsOutput,
  Verdict,
  VerifyInput,
} from "./protocol.js";
import { type ToolBatchReport, toolBatchMachine } from "./toolBatch.machine.js";
import { type SamplingPhase, selectToolChoice } from "./toolChoice.js";

/**
 * The run lifecycle (seed §2.1, §4 Phase 1–3): sample → act → record → repeat, until the run
 * ends in exactly one of five final states. Pure: every effect (provider, tools, ledger,
 * verification) is an invoked actor the runtime provides; "the model stopped calling tools" is
 * never success by itself — a text answer goes through `verifying`.
 */

export interface RunInput {
  readonly runId: string;
  readonly traceId: string;
  readonly sessionId: string;
  readonly input: string;
  readonly contract: CompletionContract;
  readonly toolKinds: Readonly<Record<string, ToolKind>>;
  readonly maxSteps: number;
  readonly doomLoopThreshold: number;
  readonly maxProtocolRepairs: number;
  readonly toolConcurrency: number;
  readonly locale: Locale;
  readonly capabilities: ProviderCapabilities;
  /** Rollout switch (seed §3.3): `observe` records the verdict but reports as `off` would. */
  readonly receiptVerification: ReceiptVerificationMode;
}

/** At most one correction turn per run (seed §4 Phase 3). */
export const MAX_CORRECTION_TURNS = 1;

export interface RunContext extends RunInput {
  readonly step: number;
  /** Last sequence number known durable in the ledger. */
  readonly sequence: number;
  readonly receipts: ReadonlyArray<ExecutionReceipt>;
  readonly callLog: ReadonlyArray<CallFingerprint>;
  readonly protocolRepairs: number;
  readonly correctionTurns: number;
  readonly stepCalls: ReadonlyArray<PlannedCall>;
  /** Commentary that came with the current step's calls; never promoted to an answer. */
  readonly stepText: string;
  /** Protocol anomalies the provider adapter reported for the current step. */
  readonly stepAnomalies: ReadonlyArray<PendingEvent>;
  readonly settlements: ReadonlyArray<ToolSettlement>;
  readonly answer: string;
  /** Rows and transcript messages that land with the terminal event. */
  readonly closingEvents: ReadonlyArray<PendingEvent>;
  readonly closingTranscript: ReadonlyArray<ContextMessage>;
  readonly outcome: Outcome | null;
  readonly cancelRequested: boolean;
  readonly samplingPhase: SamplingPhase;
  /** Whether the current step's tool_call rows are durable (only those calls can get closing receipts). */
  readonly callsRecorded: boolean;
  readonly verdict: Verdict | null;
}

export type RunEvent = { type: "CANCEL" } | ToolBatchReport;

type Response = Extract<SampleOutcome, { type: "response" }>;

export const INVALID_TOOL_NAME = "invalid";
const isResponse = (outcome: SampleOutcome): outcome is Response => outcome.type === "response";
const hasText = (outcome: Response) => outcome.text.trim().length > 0;

function protocolRepairMessages(outcome: Response, step: number): ContextMessage[] {
  const callId = `${INVALID_TOOL_NAME}-${step}`;
  const problems = outcome.malformed.map((call) => call.problem).join("; ") || "no tool call could be parsed";
  return [
    { role: "assistant", content: outcome.text, toolCalls: [{ id: callId, name: INVALID_TOOL_NAME, arguments: {} }] },
    {
      role: "tool",
      callId,
      toolName: INVALID_TOOL_NAME,
      isError: true,
      content: `The previous tool call was invalid (${problems}). Call an available tool with valid JSON arguments, or answer in text.`,
    },
  ];
}

function malformedDetail(outcome: Response): string {
  const problems = outcome.malformed.map((call) => call.problem);
  return `finish ${outcome.finishReason}; ${problems.length > 0 ? problems.join("; ") : "no tool calls"}`;
}

/** The adapter's own anomaly reports, minus any code the machine records itself. */
function reportedAnomalies(step: number, outcome: Response, skip?: string): PendingEvent[] {
  return outcome.anomalies
    .filter((reported) => reported.code !== skip)
    .map((reported) => anomaly(step, reported.code, reported.detail));
}

function anomaly(step: number, code: string, detail: string): PendingEvent {
  return { type: "provider_anomaly", payload: { step, code, detail } };
}

function assistantOutput(step: number, outcome: Response, role: "commentary" | "answer"): PendingEvent {
  return {
    type: "assistant_output",
    payload: {
      step,
      text: outcome.text,
      finishReason: outcome.finishReason,
      toolCallCount: outcome.calls.length,
      role,
    },
  };
}

export const runMachine = setup({
  types: {
    context: {} as RunContext,
    input: {} as RunInput,
    events: {} as RunEvent,
    emitted: {} as LoopEvent,
    output: {} as AgentRunResult,
  },
  actors: {
    openRun: fromPromise<LedgerWriteOutput, OpenRunInput>(async () => {
      throw new Error("openRun must be provided by the runtime");
    }),
    sampleModel: fromPromise<SampleOutcome, SampleInput>(async () => {
      throw new Error("sampleModel must be provided by the runtime");
    }),
    appendLedger: fromPromise<LedgerWriteOutput, LedgerWriteInput>(async () => {
      throw new Error("appendLedger must be provided by the runtime");
    }),
    toolBatch: toolBatchMachine,
    recordToolResults: fromPromise<ToolResultsOutput, ToolResultsInput>(async () => {
      throw new Error("recordToolResults must be provided by the runtime");
    }),
    verifyAnswer: fromPromise<Verdict, VerifyInput>(async () => {
      throw new Error("verifyAnswer must be provided by the runtime");
    }),
    finishRun: fromPromise<FinishRunOutput, FinishRunInput>(async () => {
      throw new Error("finishRun must be provided by the runtime");
    }),
  },
  guards: {
    cancelRequested: ({ context }) => context.cancelRequested,
    providerFailed: (_, params: { outcome: SampleOutcome }) => params.outcome.type === "failure",
    hasToolCalls: (_, params: { outcome: SampleOutcome }) =>
      isResponse(params.outcome) && params.outcome.calls.length > 0,
    toolFinishWithoutCalls: (_, params: { outcome: SampleOutcome }) =>
      isResponse(params.outcome) &&
      params.outcome.calls.length === 0 &&
      (params.outcome.finishReason === "tool_calls" || params.outcome.malformed.length > 0),
    repairableToolFinish: ({ context }, params: { outcome: SampleOutcome }) =>
      context.protocolRepairs < context.maxProtocolRepairs &&
      isResponse(params.outcome) &&
      params.outcome.calls.length === 0 &&
      (params.outcome.finishReason === "tool_calls" || params.outcome.malformed.length > 0),
    emptyTurnWithError: (_, params: { outcome: SampleOutcome }) =>
      isResponse(params.outcome) && !hasText(params.outcome) && params.outcome.finishReason === "error",
    emptyTurn: (_, params: { outcome: SampleOutcome }) => isResponse(params.outcome) && !hasText(params.outcome),
    answerCutByError: (_, params: { outcome: SampleOutcome }) =>
      isResponse(params.outcome) && params.outcome.finishReason === "error",
    answerCutShort: (_, params: { outcome: SampleOutcome }) =>
      isResponse(params.outcome) &&
      (params.outcome.finishReason === "length" || params.outcome.finishReason === "content_filter"),
    stepBudgetSpent: ({ context }) => context.step >= context.maxSteps,
    doomLoop: ({ context }, params: { output: ToolResultsOutput }) =>
      isDoomLoop(
        [...context.callLog, ...fingerprints(context.settlements, params.output.resultHashes)],
        context.doomLoopThreshold,
      ),
    /**
     * Defence in depth: whatever the verifier says, under `enforce` a `completed` needs the
     * contract's receipts.
     */
    verdictCompleted: ({ context }, params: { verdict: Verdict }) =>
      params.verdict.verdict === "completed" &&
      (context.receiptVerification !== "enforce" ||
        evidenceGap(context.contract, context.receipts, context.toolKinds).satisfied),
    verificationNotEnforced: ({ context }) => context.receiptVerification !== "enforce",
    correctionAllowed: ({ context }, params: { verdict: Verdict }) =>
      params.verdict.verdict === "correct" && context.correctionTurns < MAX_CORRECTION_TURNS,
    outcomeIs: ({ context }, params: { state: TerminalState }) => context.outcome?.state === params.state,
    ledgerFailureNotDecided: ({ context }) => context.outcome?.reason !== "ledger_write_failed",
  },
  actions: {
    countStep: assign({ step: ({ context }) => context.step + 1 }),
    setPhase: assign({ samplingPhase: (_, params: { phase: SamplingPhase }) => params.phase }),
    markCallsRecorded: assign({ callsRecorded: true }),
    recordVerdict: assign({ verdict: (_, params: { verdict: Verdict }) => params.verdict }),
    acceptCorrection: assign(({ context }, params: { verdict: Verdict }) => ({
      correctionTurns: context.correctionTurns + 1,
      closingEvents: [
        ...context.closingEvents,
        {
          type: "user_input" as const,
          payload: { text: params.verdict.correction ?? CORRECTION_MESSAGE, origin: "runtime_correction" },
        },
      ],
      closingTranscript: [
        ...context.closingTranscript,
        { role: "user" as const, content: params.verdict.correction ?? CORRECTION_MESSAGE },
      ],
    })),
    acceptClosingReceipts: assign({
      receipts: ({ context }, params: { output: FinishRunOutput }) => [...context.receipts, ...params.output.receipts],
    }),
    advanceSequence: assign({ sequence: (_, params: { lastSequence: number }) => params.lastSequence }),
    flagCancel: assign({ cancelRequested: true }),
    decide: assign({
      outcome: (_, params: Outcome) => params,
    }),
    acceptToolStep: enqueueActions(({ context, enqueue }, params: { outcome: SampleOutcome }) => {
      const outcome = params.outcome as Response;
      enqueue.assign({
        stepCalls: outcome.calls,
        stepText: outcome.text,
        stepAnomalies: reportedAnomalies(context.step, outcome),
        settlements: [],
        callsRecorded: false,
      });
      if (hasText(outcome) && !outcome.streamed) {
        enqueue.emit({ type: "commentary", runId: context.runId, step: context.step, text: outcome.text });
      }
    }),
    acceptProtocolRepair: assign({ protocolRepairs: ({ context }) => context.protocolRepairs + 1 }),
    closeWith: assign({
      closingEvents: (_, params: { events: ReadonlyArray<PendingEvent>; transcript?: ReadonlyArray<ContextMessage> }) =>
        params.events,
      closingTranscript: (_, params) => params.transcript ?? [],
    }),
    acceptAnswer: assign(({ context }, params: { outcome: SampleOutcome }) => {
      const outcome = params.outcome as Response;
      return {
        answer: outcome.text,
        closingEvents: [...reportedAnomalies(context.step, outcome), assistantOutput(context.step, outcome, "answer")],
        closingTranscript: [{ role: "assistant", content: outcome.text, toolCalls: [] }] as ContextMessage[],
      };
    }),
    acceptSettlements: assign({
      settlements: (_, params: { settlements: ReadonlyArray<ToolSettlement> }) => params.settlements,
    }),
    acceptToolResults: enqueueActions(({ context, enqueue }, params: { output: ToolResultsOutput }) => {
      enqueue.assign({
        receipts: [...context.receipts, ...params.output.receipts],
        callLog: [...context.callLog, ...fingerprints(context.settlements, params.output.resultHashes)],
        sequence: params.output.lastSequence,
        stepCalls: [],
        settlements: [],
        callsRecorded: false,
        samplingPhase: "continue",
      });
      for (const receipt of params.output.receipts) {
        enqueue.emit({
          type: "tool_result",
          runId: context.runId,
          step: context.step,
          callId: receipt.callId,
          toolName: receipt.toolName,
          status: receipt.status,
          ...(receipt.reason ? { reason: receipt.reason } : {}),
        });
      }
    }),
    emitToolStarted: emit(({ context }, params: ToolBatchReport) => ({
      type: "tool_started" as const,
      runId: context.runId,
      step: context.step,
      callId: params.callId,
      toolName: params.toolName,
    })),
    cancelToolBatch: sendTo("toolBatch", { type: "CANCEL" }),
    announceEnd: enqueueActions(({ context, enqueue }) => {
      const outcome = context.outcome!;
      enqueue.emit({
        type: "final",
        runId: context.runId,
        text: finalText(context),
        terminalState: outcome.state,
        ...(outcome.state === "completed" ? {} : { answer: context.answer }),
      });
      enqueue.emit({
        type: "done",
        runId: context.runId,
        traceId: context.traceId,
        terminalState: outcome.state,
        reason: outcome.reason,
      });
    }),
    failLedger: assign({
      outcome: ({ context }) => ({
        state: "failed" as const,
        reason: "ledger_write_failed" as const,
        detail: context.outcome ? `while ending as ${context.outcome.state}/${context.outcome.reason}` : null,
      }),
    }),
  },
}).createMachine({
  id: "run",
  initial: "active",
  context: ({ input }) => ({
    ...input,
    step: 0,
    sequence: 0,
    receipts: [],
    callLog: [],
    protocolRepairs: 0,
    correctionTurns: 0,
    stepCalls: [],
    stepText: "",
    stepAnomalies: [],
    settlements: [],
    answer: "",
    closingEvents: [],
    closingTranscript: [],
    outcome: null,
    cancelRequested: false,
    samplingPhase: "first",
    callsRecorded: false,
    verdict: null,
  }),
  states: {
    active: {
      initial: "opening",
      on: {
        CANCEL: {
          target: "finalizing",
          actions: { type: "decide", params: { state: "cancelled", reason: "cancelled_by_user", detail: null } },
        },
      },
      states: {
        opening: {
          invoke: {
            id: "openRun",
            src: "openRun",
            input: ({ context }) => ({
              runId: context.runId,
              sessionId: context.sessionId,
              traceId: context.traceId,
              contract: context.contract,
              input: context.input,
            }),
            onDone: [
              {
                guard: "cancelRequested",
                target: "#run.finalizing",
                actions: [
                  { type: "advanceSequence", params: ({ event }) => event.output },
                  { type: "decide", params: { state: "cancelled", reason: "cancelled_by_user", detail: null } },
                ],
              },
              { target: "sampling", actions: { type: "advanceSequence", params: ({ event }) => event.output } },
            ],
            onError: { target: "#run.finalizing", actions: "failLedger" },
          },
          on: { CANCEL: { actions: "flagCancel" } },
        },
        sampling: {
          entry: "countStep",
          invoke: {
            id: "sampleModel",
            src: "sampleModel",
            input: ({ context }) => ({
              runId: context.runId,
              step: context.step,
              toolChoice: selectToolChoice(
                context.contract,
                context.capabilities,
                new Set(Object.keys(context.toolKinds)),
                context.samplingPhase,
              ),
            }),
            onDone: [
              {
                guard: { type: "providerFailed", params: ({ event }) => ({ outcome: event.output }) },
                target: "#run.finalizing",
                actions: {
                  type: "decide",
                  params: ({ event }) => {
                    const failure = event.output as Extract<SampleOutcome, { type: "failure" }>;
                    return { state: "failed", reason: failure.reason, detail: failure.message };
                  },
                },
              },
              {
                guard: { type: "hasToolCalls", params: ({ event }) => ({ outcome: event.output }) },
                target: "recordingCalls",
                actions: { type: "acceptToolStep", params: ({ event }) => ({ outcome: event.output }) },
              },
              {
                guard: { type: "repairableToolFinish", params: ({ event }) => ({ outcome: event.output }) },
                target: "repairingProtocol",
                actions: [
                  "acceptProtocolRepair",
                  {
                    type: "closeWith",
                    params: ({ context, event }) => {
                      const outcome = event.output as Response;
                      return {
                        events: [
                          ...(hasText(outcome) ? [assistantOutput(context.step, outcome, "commentary")] : []),
                          ...reportedAnomalies(context.step, outcome, "tool_finish_without_parsed_calls"),
                          anomaly(context.step, "tool_finish_without_parsed_calls", malformedDetail(outcome)),
                        ],
                        transcript: protocolRepairMessages(outcome, context.step),
                      };
                    },
                  },
                ],
              },
              {
                guard: { type: "toolFinishWithoutCalls", params: ({ event }) => ({ outcome: event.output }) },
                target: "#run.finalizing",
                actions: [
                  {
                    type: "closeWith",
                    params: ({ context, event }) => {
                      const outcome = event.output as Response;
                      return {
                        events: [
                          ...(hasText(outcome) ? [assistantOutput(context.step, outcome, "commentary")] : []),
                          ...reportedAnomalies(context.step, outcome, "tool_finish_without_parsed_calls"),
                          anomaly(context.step, "tool_finish_without_parsed_calls", malformedDetail(outcome)),
                        ],
                      };
                    },
                  },
                  {
                    type: "decide",
                    params: {
                      state: "failed",
                      reason: "provider_tool_protocol_invalid",
                      detail: "tool finish without a parseable call, after one repair",
                    },
                  },
                ],
              },
              {
                guard: { type: "emptyTurnWithError", params: ({ event }) => ({ outcome: event.output }) },
                target: "#run.finalizing",
                actions: [
                  {
                    type: "closeWith",
                    params: ({ context, event }) => ({
                      events: [
                        ...reportedAnomalies(context.step, event.output as Response),
                        anomaly(context.step, "empty_turn", `finish ${(event.output as Response).finishReason}`),
                      ],
                    }),
                  },
                  {
                    type: "decide",
                    params: { state: "failed", reason: "incomplete_turn", detail: "empty turn, finish error" },
                  },
                ],
              },
              {
                guard: { type: "emptyTurn", params: ({ event }) => ({ outcome: event.output }) },
                target: "#run.finalizing",
                actions: [
                  {
                    type: "closeWith",
                    params: ({ context, event }) => ({
                      events: [
                        ...reportedAnomalies(context.step, event.output as Response),
                        anomaly(context.step, "empty_turn", `finish ${(event.output as Response).finishReason}`),
                      ],
                    }),
                  },
                  {
                    type: "decide",
                    params: ({ event }) => ({
                      state: "incomplete",
                      reason: "incomplete_turn",
                      detail: `empty turn, finish ${(event.output as Response).finishReason}`,
                    }),
                  },
                ],
              },
              {
                guard: { type: "answerCutByError", params: ({ event }) => ({ outcome: event.output }) },
                target: "#run.finalizing",
                actions: [
                  { type: "acceptAnswer", params: ({ event }) => ({ outcome: event.output }) },
                  {
                    type: "decide",
                    params: { state: "failed", reason: "incomplete_turn", detail: "answer cut by a provider error" },
                  },
                ],
              },
              {
                guard: { type: "answerCutShort", params: ({ event }) => ({ outcome: event.output }) },
                target: "#run.finalizing",
                actions: [
                  { type: "acceptAnswer", params: ({ event }) => ({ outcome: event.output }) },
                  {
                    type: "decide",
                    params: ({ event }) => ({
                      state: "incomplete",
                      reason: "incomplete_turn",
                      detail: `answer cut short, finish ${(event.output as Response).finishReason}`,
                    }),
                  },
                ],
              },
              {
                target: "verifying",
                actions: { type: "acceptAnswer", params: ({ event }) => ({ outcome: event.output }) },
              },
            ],
            onError: {
              target: "#run.finalizing",
              actions: {
                type: "decide",
                params: { state: "failed", reason: "provider_error", detail: "provider actor crashed" },
              },
            },
          },
        },
        repairingProtocol: {
          invoke: {
            id: "recordRepair",
            src: "appendLedger",
            input: ({ context }) => ({
              runId: context.runId,
              firstSequence: context.sequence + 1,
              events: context.closingEvents,
              transcript: context.closingTranscript,
            }),
            onDone: sampleAgainAfterWrite("continue"),
            onError: {
              target: "#run.finalizing",
              actions: [{ type: "closeWith", params: { events: [] } }, "failLedger"],
            },
          },
          on: { CANCEL: { actions: "flagCancel" } },
        },
        recordingCalls: {
          invoke: {
            id: "recordCalls",
            src: "appendLedger",
            input: ({ context }) => ({
              runId: context.runId,
              firstSequence: context.sequence + 1,
              events: toolStepEvents(context),
              transcript: [
                {
                  role: "assistant",
                  content: context.stepText,
                  toolCalls: context.stepCalls.map((planned) => planned.call),
                },
              ],
            }),
            onDone: {
              target: "executingTools",
              actions: [{ type: "advanceSequence", params: ({ event }) => event.output }, "markCallsRecorded"],
            },
            onError: { target: "#run.finalizing", actions: "failLedger" },
          },
          on: { CANCEL: { actions: "flagCancel" } },
        },
        executingTools: {
          invoke: {
            id: "toolBatch",
            src: "toolBatch",
            input: ({ context }) => ({
              runId: context.runId,
              step: context.step,
              calls: context.stepCalls,
              concurrency: context.toolConcurrency,
              cancelled: context.cancelRequested,
            }),
            onDone: {
              target: "recordingResults",
              actions: { type: "acceptSettlements", params: ({ event }) => ({ settlements: event.output }) },
            },
            onError: {
              target: "#run.finalizing",
              actions: {
                type: "decide",
                params: { state: "failed", reason: "internal_error", detail: "tool batch crashed" },
              },
            },
          },
          on: {
            CALL_STARTED: { actions: { type: "emitToolStarted", params: ({ event }) => event } },
            CANCEL: { actions: ["flagCancel", "cancelToolBatch"] },
          },
        },
        recordingResults: {
          invoke: {
            id: "recordToolResults",
            src: "recordToolResults",
            input: ({ context }) => ({
              runId: context.runId,
              step: context.step,
              firstSequence: context.sequence + 1,
              settlements: context.settlements,
            }),
            onDone: [
              {
                guard: "cancelRequested",
                target: "#run.finalizing",
                actions: [
                  { type: "acceptToolResults", params: ({ event }) => ({ output: event.output }) },
                  { type: "decide", params: { state: "cancelled", reason: "cancelled_by_user", detail: null } },
                ],
              },
              {
                guard: { type: "doomLoop", params: ({ event }) => ({ output: event.output }) },
                target: "#run.finalizing",
                actions: [
                  { type: "acceptToolResults", params: ({ event }) => ({ output: event.output }) },
                  {
                    type: "decide",
                    params: { state: "incomplete", reason: "doom_loop", detail: "the same tool call kept repeating" },
                  },
                ],
              },
              {
                guard: "stepBudgetSpent",
                target: "#run.finalizing",
                actions: [
                  { type: "acceptToolResults", params: ({ event }) => ({ output: event.output }) },
                  { type: "decide", params: { state: "incomplete", reason: "max_steps_reached", detail: null } },
                ],
              },
              {
                target: "sampling",
                actions: { type: "acceptToolResults", params: ({ event }) => ({ output: event.output }) },
              },
            ],
            onError: { target: "#run.finalizing", actions: "failLedger" },
          },
          on: { CANCEL: { actions: "flagCancel" } },
        },
        verifying: {
          invoke: {
            id: "verifyAnswer",
            src: "verifyAnswer",
            input: ({ context }) => ({
              runId: context.runId,
              contract: context.contract,
              receipts: context.receipts,
              answer: context.answer,
              toolKinds: context.toolKinds,
              correctionTurns: context.correctionTurns,
            }),
            onDone: [
              {
                guard: { type: "verdictCompleted", params: ({ event }) => ({ verdict: event.output }) },
                target: "#run.finalizing",
                actions: [
                  { type: "recordVerdict", params: ({ event }) => ({ verdict: event.output }) },
                  {
                    type: "decide",
                    params: ({ event }) => ({ state: "completed", reason: event.output.reason, detail: null }),
                  },
                ],
              },
              {
                // `off` and `observe` report what the old loop would have: the answer, completed.
                guard: "verificationNotEnforced",
                target: "#run.finalizing",
                actions: [
                  { type: "recordVerdict", params: ({ event }) => ({ verdict: event.output }) },
                  { type: "decide", params: { state: "completed", reason: "answered", detail: null } },
                ],
              },
              {
                guard: { type: "correctionAllowed", params: ({ event }) => ({ verdict: event.output }) },
                target: "correcting",
                actions: [
                  { type: "recordVerdict", params: ({ event }) => ({ verdict: event.output }) },
                  { type: "acceptCorrection", params: ({ event }) => ({ verdict: event.output }) },
                ],
              },
              {
                target: "#run.finalizing",
                actions: [
                  { type: "recordVerdict", params: ({ event }) => ({ verdict: event.output }) },
                  {
                    type: "decide",
                    params: ({ event }) => ({
                      state: "unverified",
                      reason: event.output.verdict === "completed" ? "receipt_missing" : event.output.reason,
                      detail: event.output.missing.join("; ") || null,
                    }),
                  },
                ],
              },
            ],
            onError: {
              target: "#run.finalizing",
              actions: {
                type: "decide",
                params: { state: "failed", reason: "internal_error", detail: "verifier crashed" },
              },
            },
          },
        },
        correcting: {
          invoke: {
            id: "recordCorrection",
            src: "appendLedger",
            input: ({ context }) => ({
              runId: context.runId,
              firstSequence: context.sequence + 1,
              events: context.closingEvents,
              transcript: context.closingTranscript,
            }),
            onDone: sampleAgainAfterWrite("correction"),
            onError: {
              target: "#run.finalizing",
              actions: [{ type: "closeWith", params: { events: [] } }, "failLedger"],
            },
          },
          on: { CANCEL: { actions: "flagCancel" } },
        },
      },
    },
    finalizing: {
      invoke: {
        id: "finishRun",
        src: "finishRun",
        input: ({ context }) => ({
          runId: context.runId,
          firstSequence: context.sequence + 1,
          events: context.closingEvents,
          unsettled: unsettledCalls(context),
          terminal: {
            terminalState: context.outcome!.state,
            reason: context.outcome!.reason,
            finalText: finalText(context),
            steps: context.step,
            correctionTurns: context.correctionTurns,
            ...(context.verdict && context.receiptVerification !== "off"
              ? {
                  verification: {
                    mode: context.receiptVerification,
                    verdict: context.verdict.verdict,
                    reason: context.verdict.reason,
                    missing: [...context.verdict.missing],
                  },
                }
              : {}),
          },
          detail: context.outcome!.detail,
          transcript: context.closingTranscript,
        }),
        onDone: [
          {
            guard: { type: "outcomeIs", params: { state: "completed" } },
            target: "completed",
            actions: { type: "acceptClosingReceipts", params: ({ event }) => ({ output: event.output }) },
          },
          {
            guard: { type: "outcomeIs", params: { state: "unverified" } },
            target: "unverified",
            actions: { type: "acceptClosingReceipts", params: ({ event }) => ({ output: event.output }) },
          },
          {
            guard: { type: "outcomeIs", params: { state: "incomplete" } },
            target: "incomplete",
            actions: { type: "acceptClosingReceipts", params: ({ event }) => ({ output: event.output }) },
          },
          {
            guard: { type: "outcomeIs", params: { state: "cancelled" } },
            target: "cancelled",
            actions: { type: "acceptClosingReceipts", params: ({ event }) => ({ output: event.output }) },
          },
          {
            target: "failed",
            actions: { type: "acceptClosingReceipts", params: ({ event }) => ({ output: event.output }) },
          },
        ],
        onError: [
          // The closing rows could not be written: close again as failed/ledger_write_failed
          // (the runtime then writes the terminal without the refused rows), once.
          { guard: "ledgerFailureNotDecided", target: "finalizing", reenter: true, actions: "failLedger" },
          { target: "failed", actions: "failLedger" },
        ],
      },
    },
    completed: { type: "final", entry: "announceEnd" },
    unverified: { type: "final", entry: "announceEnd" },
    incomplete: { type: "final", entry: "announceEnd" },
    failed: { type: "final", entry: "announceEnd" },
    cancelled: { type: "final", entry: "announceEnd" },
  },
  output: ({ context }) => ({
    runId: context.runId,
    traceId: context.traceId,
    sessionId: context.sessionId,
    terminalState: context.outcome!.state,
    terminalReason: context.outcome!.reason,
    finalText: finalText(context),
    steps: context.step,
    correctionTurns: context.correctionTurns,
    receipts: [...context.receipts],
  }),
});

function fingerprints(settlements: ReadonlyArray<ToolSettlement>, hashes: ReadonlyArray<string>): CallFingerprint[] {
  return settlements.map((settlement, index) => ({
    toolName: settlement.toolName,
    inputFingerprint: settlement.inputFingerprint,
    resultHash: hashes[index] ?? "",
  }));
}

/**
 * After a ledger write that precedes another sampling step (a protocol repair, a correction):
 * a pending CANCEL or a spent step budget ends the run here; otherwise sample again.
 */
function sampleAgainAfterWrite(phase: SamplingPhase) {
  const advance = {
    type: "advanceSequence",
    params: ({ event }: { event: { output: LedgerWriteOutput } }) => event.output,
  } as const;
  const clear = { type: "closeWith", params: { events: [] } } as const;
  return [
    {
      guard: "cancelRequested",
      target: "#run.finalizing",
      actions: [
        advance,
        clear,
        { type: "decide", params: { state: "cancelled", reason: "cancelled_by_user", detail: null } },
      ],
    },
    {
      guard: "stepBudgetSpent",
      target: "#run.finalizing",
      actions: [
        advance,
        clear,
        { type: "decide", params: { state: "incomplete", reason: "max_steps_reached", detail: null } },
      ],
    },
    { target: "sampling", actions: [advance, clear, { type: "setPhase", params: { phase } }] },
  ] as const;
}

/** The rows of a tool step that are made durable before any tool runs (write-ahead). */
function toolStepEvents(context: RunContext): PendingEvent[] {
  const events: PendingEvent[] = [...context.stepAnomalies];
  if (context.stepText.trim().length > 0) {
    events.push({
      type: "assistant_output",
      payload: {
        step: context.step,
        text: context.stepText,
        finishReason: "tool_calls",
        toolCallCount: context.stepCalls.length,
        role: "commentary",
      },
    });
  }
  for (const planned of context.stepCalls) {
    events.push({
      type: "tool_call",
      payload: {
        step: context.step,
        callId: planned.call.id,
        toolName: planned.call.name,
        arguments: planned.call.arguments,
        inputFingerprint: planned.inputFingerprint,
      },
    });
  }
  return events;
}

/** Calls of the current step whose results were never recorded: they must still get a receipt. */
function unsettledCalls(context: RunContext): ReadonlyArray<PlannedCall> {
  if (!context.callsRecorded) return [];
  const recorded = new Set(context.receipts.map((receipt) => receipt.callId));
  return context.stepCalls.filter((planned) => !recorded.has(planned.call.id));
}

function finalText(context: RunContext): string {
  const outcome = context.outcome!;
  return finalMessage({
    terminalState: outcome.state,
    reason: outcome.reason,
    modelText: context.answer,
    traceId: context.traceId,
    locale: context.locale,
  });
}
