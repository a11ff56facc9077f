import { assign, type EventObject, emit, enqueueActions, fromCallback, sendTo, setup } from "xstate";
import type {
  AgentRunResult,
  ApprovalNotice,
  BatchReply,
  EventSink,
  LoopEvent,
  Outcome,
  RunCommand,
  RunReply,
  ToolSettlement,
} from "../../domain/index.js";
import { RUN_IO_ID, toolBatchMachine } from "../toolBatch/machine.js";
import { selectToolChoice } from "../toolChoice.js";
import {
  finishCommand,
  openCommand,
  recordCallsCommand,
  recordResultsCommand,
  recordTurnCommand,
  verifyCommand,
} from "./commands.js";
import { initialContext, NO_ROWS, type RunContext, type RunInput } from "./context.js";
import { afterCallsRecorded, afterOpened, afterTurn, classifySample, classifyVerdict, runsAlone } from "./decisions.js";
import type { CallGivenUp, CallSettled, CallStarted, RunEvent, RunIOInput } from "./events.js";
import { approvalRequestedNotice, endNotices, runResult, textDeltaNotice, toolStartedNotice } from "./notices.js";
import {
  CALL_TIMEOUT,
  callResultCommand,
  callStarted,
  callsCancelledCommand,
  callsRecorded,
  giveUpCall,
  resultsRecorded,
  startToolStep,
} from "./toolStep.js";
import { CANCELLED, correctionTurn, ledgerFailed, mergedVerdict, repairTurn, stopped } from "./updates.js";

/**
 * The run lifecycle: sample → act → record → repeat, until the run ends
 * in exactly one of five final states. The machine only decides: one I/O actor per run (`io`,
 * provided by the runtime) performs each command it sends and answers with a named event. Each
 * answer is turned into one decision by a pure function (decisions.ts) and raised, so transitions
 * never depend on guard order. "The model stopped calling tools" is never success by itself: a
 * text answer goes through `verifying`.
 *
 * In `executingTools` a step's one call that may run and needs no approval is executed by the run
 * itself, any other step's calls by a tool batch it spawns (toolStep.ts says how).
 *
 * CANCEL is taken in one place, the `cancellation` region, which remembers it and raises
 * CANCEL_REQUESTED: sampling and verifying end the run at once, the tool batch is told at once,
 * and a ledger write in flight is let finish — its answer's decision sees the flag.
 *
 * While calls of the tool step wait for approval the `approval` region is in
 * `awaitingApproval`: entered when the tool batch says a call's request is durable (the host is
 * told then, with `approval_requested`), left when the batch says no call waits any more. That is
 * all the run knows of approvals; their state and decisions live in the batch.
 */

/** What a host may ask of a run's snapshot (`snapshot.hasTag(...)`). */
export const RUN_WAITING_FOR_APPROVAL = "waitingForApproval";
export type RunTag = typeof RUN_WAITING_FOR_APPROVAL;

export const runMachine = setup({
  types: {
    context: {} as RunContext,
    input: {} as RunInput,
    events: {} as RunEvent,
    emitted: {} as LoopEvent,
    output: {} as AgentRunResult,
    tags: {} as RunTag,
  },
  actors: {
    /** Provided by the runtime: performs RunCommands, answers with RunReply events. */
    runIO: fromCallback<RunCommand, RunIOInput>(() => undefined),
    toolBatch: toolBatchMachine,
  },
  guards: {
    outcomeCompleted: ({ context }) => context.outcome?.state === "completed",
    outcomeUnverified: ({ context }) => context.outcome?.state === "unverified",
    outcomeIncomplete: ({ context }) => context.outcome?.state === "incomplete",
    outcomeCancelled: ({ context }) => context.outcome?.state === "cancelled",
    outcomeFailed: ({ context }) => context.outcome?.state === "failed",
    ledgerFailureNotDecided: ({ context }) => context.outcome?.reason !== "ledger_write_failed",
  },
  actions: {
    /**
     * A write's answer carries the run's new last durable row. The answers that change more
     * (CALLS_RECORDED, RESULTS_RECORDED, TURN_RECORDED) note it in their own one assign: each
     * assign builds a new snapshot, state value and tags included.
     */
    noteSequence: assign({
      lastSequence: ({ context, event }) => ("lastSequence" in event ? event.lastSequence : context.lastSequence),
    }),
    requestOpen: sendTo("io", ({ context }) => openCommand(context)),
    decideOpened: enqueueActions(({ context, enqueue }) => {
      enqueue.raise(afterOpened(context, { cancelled: context.cancelRequested }));
    }),
    decideCallsRecorded: enqueueActions(({ context, enqueue }) => {
      enqueue.raise(afterCallsRecorded({ cancelled: context.cancelRequested }));
    }),
    /**
     * CANCEL is taken in one place, the `cancellation` region: it sets the flag the decisions read
     * and tells the work in progress by CANCEL_REQUESTED.
     */
    announceCancel: enqueueActions(({ enqueue }) => {
      enqueue.assign({ cancelRequested: true });
      enqueue.raise({ type: "CANCEL_REQUESTED" });
    }),
    requestSample: enqueueActions(({ context, enqueue }) => {
      const step = context.step + 1;
      enqueue.assign({ step });
      const toolChoice = selectToolChoice(
        context.contract,
        context.capabilities,
        new Set(Object.keys(context.toolKinds)),
        context.samplingPhase,
      );
      enqueue.sendTo("io", { type: "SAMPLE", step, toolChoice } satisfies RunCommand);
    }),
    stopSample: sendTo("io", { type: "STOP_SAMPLE" } satisfies RunCommand),
    decideSample: enqueueActions(({ context, event, enqueue }) => {
      if (event.type === "SAMPLED") enqueue.raise(classifySample(event.outcome, context));
    }),
    acceptCalls: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== "CALLS") return;
      enqueue.assign({ stepCalls: event.calls, stepText: event.text, stepAnomalies: event.anomalies });
      if (event.commentary)
        enqueue.emit({ type: "commentary", runId: context.runId, step: context.step, text: event.text });
    }),
    requestCallsRecord: sendTo("io", ({ context }) => recordCallsCommand(context)),
    /** The step's calls are durable: the host hears what the model asked for, before any runs or waits. */
    markCallsRecorded: enqueueActions(({ context, event, enqueue }) => {
      const recorded = callsRecorded(
        context,
        event.type === "CALLS_RECORDED" ? event.lastSequence : context.lastSequence,
      );
      enqueue.assign(recorded.update);
      for (const notice of recorded.notices) enqueue.emit(notice);
    }),
    emitTextDelta: emit(({ context }, delta: Extract<RunReply, { type: "TEXT_DELTA" }>) =>
      textDeltaNotice(context, delta),
    ),
    /** Cancelled while the calls were being recorded: none runs, each gets a cancelled result. */
    recordCallsCancelled: sendTo("io", ({ context }) => callsCancelledCommand(context)),
    requestResultsRecord: sendTo("io", ({ context }, params: { settlements: ReadonlyArray<ToolSettlement> }) =>
      recordResultsCommand(context, params.settlements),
    ),
    /**
     * The step's calls start: one that may run and needs no approval is executed by the run itself
     * (the I/O actor reports back to the run); any other step's calls go to a tool batch.
     */
    startTools: enqueueActions(({ context, enqueue, self }) => {
      const start = startToolStep(context, self as EventSink<BatchReply>);
      if (start.runner === "run") enqueue.sendTo("io", start.command);
      else enqueue.spawnChild("toolBatch", { id: "toolBatch", input: start.input });
    }),
    /** Leaving the tool step: a batch still running stops; a call's timeout no longer applies. */
    stopTools: enqueueActions(({ context, enqueue }) => {
      if (runsAlone(context.stepCalls)) enqueue.cancel(CALL_TIMEOUT);
      else enqueue.stopChild("toolBatch");
    }),
    /**
     * The call's start record is durable: the host hears it started, and its timeout counts from
     * now (a delayed event, as a batch sets its timer when a call reports its start).
     */
    noteCallStarted: enqueueActions(({ context, enqueue }, started: CallStarted) => {
      const { update, notice, timeout } = callStarted(context, started);
      enqueue.assign(update);
      enqueue.emit(notice);
      enqueue.raise(timeout.event, { id: CALL_TIMEOUT, delay: timeout.delay });
    }),
    recordCallResult: sendTo("io", ({ context }, reported: CallSettled) => callResultCommand(context, reported)),
    /** CANCEL during the tool step: the batch is told, or the run's own call is given up. */
    cancelTools: enqueueActions(({ context, enqueue }) => {
      if (runsAlone(context.stepCalls)) enqueue.raise({ type: "CALL_GIVEN_UP", status: "cancelled" });
      else enqueue.sendTo("toolBatch", { type: "CANCEL" });
    }),
    /** The call was given up (timed out, or a CANCEL came): it is aborted, then settles as such. */
    giveUpCall: enqueueActions(({ context, enqueue }, given: Pick<CallGivenUp, "status">) => {
      const { abort, record } = giveUpCall(context, given.status);
      enqueue.sendTo("io", abort);
      enqueue.sendTo("io", record);
    }),
    emitToolStarted: emit(({ context }, started: Extract<RunReply, { type: "TOOL_STARTED" }>) =>
      toolStartedNotice(context, started),
    ),
    announceApprovalRequest: emit(({ context }, request: Extract<ApprovalNotice, { type: "APPROVAL_WAITING" }>) =>
      approvalRequestedNotice(context, request),
    ),
    acceptResults: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== "RESULTS_RECORDED") return;
      const { update, notices, decision } = resultsRecorded(context, event);
      enqueue.assign(update);
      for (const notice of notices) enqueue.emit(notice);
      enqueue.raise(decision);
    }),
    acceptAnswer: assign(({ event }) =>
      event.type === "ANSWER" ? { answer: event.answer, closing: event.closing } : {},
    ),
    requestVerify: sendTo("io", ({ context }) => verifyCommand(context)),
    decideVerdict: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== "VERIFIED") return;
      enqueue.assign({ verdict: mergedVerdict(context, event.verdict) });
      enqueue.raise(classifyVerdict(event.verdict, context));
    }),
    acceptRepair: assign(({ context, event }) => (event.type === "REPAIR" ? repairTurn(context, event) : {})),
    acceptCorrection: assign(({ context, event }) => (event.type === "CORRECT" ? correctionTurn(context, event) : {})),
    requestTurnRecord: sendTo("io", ({ context }) => recordTurnCommand(context)),
    decideAfterTurn: enqueueActions(({ context, event, enqueue }) => {
      enqueue.assign({
        turn: NO_ROWS,
        lastSequence: event.type === "TURN_RECORDED" ? event.lastSequence : context.lastSequence,
      });
      enqueue.raise(afterTurn(context, { cancelled: context.cancelRequested }));
    }),
    acceptStop: assign(({ context, event }) => (event.type === "STOP" ? stopped(context, event) : {})),
    decideCancelled: assign({ outcome: CANCELLED }),
    failWith: assign({ outcome: (_, params: Outcome) => params }),
    failLedger: assign({ outcome: ({ context }) => ledgerFailed(context) }),
    requestFinish: sendTo("io", ({ context }) => finishCommand(context)),
    acceptClosingReceipts: assign(({ context, event }) =>
      event.type === "FINISHED" ? { receipts: [...context.receipts, ...event.receipts] } : {},
    ),
    announceEnd: enqueueActions(({ context, enqueue }) => {
      for (const notice of endNotices(context)) enqueue.emit(notice);
    }),
  },
}).createMachine({
  id: "run",
  initial: "active",
  context: ({ input }) => initialContext(input),
  invoke: { id: RUN_IO_ID, src: "runIO", input: ({ context }) => ({ runId: context.runId }) },
  states: {
    active: {
      type: "parallel",
      on: { LEDGER_FAILED: { target: "finalizing", actions: "failLedger" } },
      states: {
        work: {
          initial: "opening",
          // Decisions that end the run or sample again mean the same in every state that raises them.
          on: {
            CONTINUE: ".sampling",
            STOP: { target: "#run.finalizing", actions: "acceptStop" },
          },
          states: {
            opening: {
              entry: "requestOpen",
              on: {
                OPENED: { actions: ["noteSequence", "decideOpened"] },
                RUN_CALLS: "executingTools",
              },
            },
            sampling: {
              entry: "requestSample",
              on: {
                SAMPLED: { actions: "decideSample" },
                TEXT_DELTA: { actions: { type: "emitTextDelta", params: ({ event }) => event } },
                CALLS: { target: "recordingCalls", actions: "acceptCalls" },
                REPAIR: { target: "recordingTurn", actions: "acceptRepair" },
                ANSWER: { target: "verifying", actions: "acceptAnswer" },
                CANCEL_REQUESTED: { target: "#run.finalizing", actions: ["stopSample", "decideCancelled"] },
              },
            },
            recordingCalls: {
              entry: "requestCallsRecord",
              on: {
                CALLS_RECORDED: { actions: ["markCallsRecorded", "decideCallsRecorded"] },
                RUN_CALLS: "executingTools",
                CANCEL_CALLS: { target: "recordingResults", actions: "recordCallsCancelled" },
              },
            },
            executingTools: {
              entry: "startTools",
              exit: "stopTools",
              on: {
                // A tool batch (several calls, a refused call, a call that needs approval).
                TOOL_STARTED: { actions: { type: "emitToolStarted", params: ({ event }) => event } },
                "xstate.done.actor.toolBatch": {
                  target: "recordingResults",
                  actions: {
                    type: "requestResultsRecord",
                    params: ({ event }: { event: EventObject }) => ({
                      settlements: (event as EventObject & { output: ReadonlyArray<ToolSettlement> }).output,
                    }),
                  },
                },
                "xstate.error.actor.toolBatch": {
                  target: "#run.finalizing",
                  actions: {
                    type: "failWith",
                    params: { state: "failed", reason: "internal_error", detail: "tool batch crashed" },
                  },
                },
                // The step's one call, run by the run itself.
                CALL_STARTED: { actions: { type: "noteCallStarted", params: ({ event }) => event } },
                CALL_SETTLED: {
                  target: "recordingResults",
                  actions: { type: "recordCallResult", params: ({ event }) => event },
                },
                CALL_GIVEN_UP: {
                  target: "recordingResults",
                  actions: { type: "giveUpCall", params: ({ event }) => event },
                },
                CANCEL_REQUESTED: { actions: "cancelTools" },
              },
            },
            recordingResults: {
              on: {
                RESULTS_RECORDED: { actions: "acceptResults" },
              },
            },
            verifying: {
              entry: "requestVerify",
              on: {
                VERIFIED: { actions: "decideVerdict" },
                CORRECT: { target: "recordingTurn", actions: "acceptCorrection" },
                VERIFY_FAILED: {
                  target: "#run.finalizing",
                  actions: {
                    type: "failWith",
                    params: { state: "failed", reason: "internal_error", detail: "verifier crashed" },
                  },
                },
                CANCEL_REQUESTED: { target: "#run.finalizing", actions: "decideCancelled" },
              },
            },
            recordingTurn: {
              entry: "requestTurnRecord",
              on: {
                TURN_RECORDED: { actions: "decideAfterTurn" },
              },
            },
          },
        },
        cancellation: {
          initial: "idle",
          states: {
            idle: { on: { CANCEL: { target: "requested", actions: "announceCancel" } } },
            requested: {},
          },
        },
        approval: {
          initial: "idle",
          states: {
            idle: {
              on: {
                APPROVAL_WAITING: {
                  target: "awaitingApproval",
                  actions: { type: "announceApprovalRequest", params: ({ event }) => event },
                },
              },
            },
            awaitingApproval: {
              tags: [RUN_WAITING_FOR_APPROVAL],
              on: {
                APPROVAL_WAITING: { actions: { type: "announceApprovalRequest", params: ({ event }) => event } },
                NO_APPROVAL_WAITING: { target: "idle" },
              },
            },
          },
        },
      },
    },
    finalizing: {
      entry: "requestFinish",
      on: {
        FINISHED: [
          { guard: "outcomeCompleted", target: "completed", actions: "acceptClosingReceipts" },
          { guard: "outcomeUnverified", target: "unverified", actions: "acceptClosingReceipts" },
          { guard: "outcomeIncomplete", target: "incomplete", actions: "acceptClosingReceipts" },
          { guard: "outcomeCancelled", target: "cancelled", actions: "acceptClosingReceipts" },
          { guard: "outcomeFailed", target: "failed", actions: "acceptClosingReceipts" },
        ],
        LEDGER_FAILED: [
          // The closing rows could not be written: close again as failed/ledger_write_failed (the
          // runtime then writes the terminal without the refused rows), once.
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
  output: ({ context }) => runResult(context),
});
