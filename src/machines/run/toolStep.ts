import type { BatchReply, EventSink, LoopEvent, RunCommand, RunReply, ToolSettlement } from "../../domain/index.js";
import { cancelledSettlement, resultSettlement, timedOutSettlement } from "../settlements.js";
import type { ToolBatchInput } from "../toolBatch/machine.js";
import { recordResultsCommand } from "./commands.js";
import type { RunContext } from "./context.js";
import { afterToolResults, type RunDecision, runsAlone } from "./decisions.js";
import type { CallGivenUp, CallSettled, CallStarted } from "./events.js";
import { fingerprints } from "./records.js";

/**
 * A tool step, from its calls being durable to their results being durable, as pure functions of
 * the context: what changes in it, what the host hears, what the I/O actor is asked to do.
 *
 * A step's one call that may run and needs no approval (most steps) is executed by the run itself:
 * EXECUTE names the run as the one to report to, and the call's start, timeout, cancel and result
 * are handled as a tool batch would handle them, with the same settlements. Any other step's calls
 * go to a tool batch actor. Either way the run is in the same state, so hosts and the ledger's path
 * see the same states.
 */

type Command<T extends RunCommand["type"]> = Extract<RunCommand, { type: T }>;

/** The id of the delayed event that times out a call the run executes alone. */
export const CALL_TIMEOUT = "callTimeout";

/** The step's calls are durable: note the last row, and tell the host what the model asked for. */
export function callsRecorded(
  context: RunContext,
  lastSequence: number,
): { readonly update: Pick<RunContext, "callsRecorded" | "lastSequence">; readonly notices: LoopEvent[] } {
  return {
    update: { callsRecorded: true, lastSequence },
    notices: context.stepCalls.map(({ call }) => ({
      type: "tool_call" as const,
      runId: context.runId,
      step: context.step,
      callId: call.id,
      toolName: call.name,
      arguments: call.arguments,
    })),
  };
}

/** Cancelled while the calls were being recorded: none runs, each gets a cancelled result. */
export const callsCancelledCommand = (context: RunContext): Command<"RECORD_RESULTS"> =>
  recordResultsCommand(
    context,
    context.stepCalls.map((planned) => cancelledSettlement(planned, null)),
  );

/** Who runs the step's calls: the run itself (one call the I/O actor executes), or a tool batch. */
export type ToolStepStart =
  | { readonly runner: "run"; readonly command: Command<"EXECUTE"> }
  | { readonly runner: "batch"; readonly input: ToolBatchInput };

/** `replyTo` is the run: it takes the I/O actor's reports on its own call (CALL_STARTED, CALL_SETTLED). */
export function startToolStep(context: RunContext, replyTo: EventSink<BatchReply>): ToolStepStart {
  if (runsAlone(context.stepCalls)) {
    return {
      runner: "run",
      command: {
        type: "EXECUTE",
        runId: context.runId,
        step: context.step,
        index: 0,
        planned: context.stepCalls[0]!,
        replyTo,
      },
    };
  }
  return {
    runner: "batch",
    input: {
      runId: context.runId,
      step: context.step,
      calls: context.stepCalls,
      concurrency: context.toolConcurrency,
    },
  };
}

/**
 * The call's start record is durable: the host hears it started, and its timeout counts from now
 * (as a batch sets its timer when a call reports its start).
 */
export function callStarted(
  context: RunContext,
  started: CallStarted,
): {
  readonly update: Pick<RunContext, "callStartedAt">;
  readonly notice: LoopEvent;
  readonly timeout: { readonly event: CallGivenUp; readonly delay: number };
} {
  const planned = context.stepCalls[0]!;
  return {
    update: { callStartedAt: started.startedAt },
    notice: {
      type: "tool_started",
      runId: context.runId,
      step: context.step,
      callId: planned.call.id,
      toolName: planned.call.name,
    },
    timeout: { event: { type: "CALL_GIVEN_UP", status: "timed_out" }, delay: planned.timeoutMs },
  };
}

/** The call's result came: record it as the step's one settlement. */
export const callResultCommand = (context: RunContext, reported: CallSettled): Command<"RECORD_RESULTS"> =>
  recordResultsCommand(context, [resultSettlement(context.stepCalls[0]!, reported.result)]);

/**
 * The call was given up (timed out, or a CANCEL came): its fiber is interrupted, its tool told,
 * and it settles as such — started when it had reported its start (`callStartedAt`, null before).
 */
export function giveUpCall(
  context: RunContext,
  status: CallGivenUp["status"],
): { readonly abort: Command<"ABORT">; readonly record: Command<"RECORD_RESULTS"> } {
  const planned = context.stepCalls[0]!;
  const settlement: ToolSettlement =
    status === "timed_out"
      ? timedOutSettlement(planned, context.callStartedAt)
      : cancelledSettlement(planned, context.callStartedAt);
  return { abort: { type: "ABORT", callId: planned.call.id }, record: recordResultsCommand(context, [settlement]) };
}

/** The RESULTS_RECORDED answer: the step's receipts, their hashes and the outputs the host sees. */
export type ResultsRecorded = Extract<RunReply, { type: "RESULTS_RECORDED" }>;

/**
 * The step's results are durable: the step is over (its calls forgotten, the next sample
 * continues), the host hears each result, and the run decides what comes next.
 */
export function resultsRecorded(
  context: RunContext,
  recorded: ResultsRecorded,
): {
  readonly update: Pick<
    RunContext,
    "lastSequence" | "receipts" | "callLog" | "stepCalls" | "callStartedAt" | "callsRecorded" | "samplingPhase"
  >;
  readonly notices: LoopEvent[];
  readonly decision: RunDecision;
} {
  const callLog = [...context.callLog, ...fingerprints(recorded.receipts, recorded.resultHashes)];
  return {
    update: {
      lastSequence: recorded.lastSequence,
      receipts: [...context.receipts, ...recorded.receipts],
      callLog,
      stepCalls: [],
      callStartedAt: null,
      callsRecorded: false,
      samplingPhase: "continue",
    },
    notices: recorded.receipts.map((receipt, index) => {
      const output = recorded.outputs?.[index];
      return {
        type: "tool_result" as const,
        runId: context.runId,
        step: context.step,
        callId: receipt.callId,
        toolName: receipt.toolName,
        status: receipt.status,
        ...(receipt.reason ? { reason: receipt.reason } : {}),
        ...(output !== undefined ? { output } : {}),
      };
    }),
    decision: afterToolResults(context, callLog, { cancelled: context.cancelRequested }),
  };
}
