import { assign, enqueueActions, sendParent, setup } from "xstate";
import type { PlannedCall, ToolSettlement } from "../domain/index.js";
import { type ToolCallReport, toolCallMachine } from "./toolCall.machine.js";

/**
 * The pending set of one step's tool calls. Spawns one toolCall actor per call, starts at most
 * `concurrency` runnable calls at a time, and is done only when every call has settled; the
 * output lists settlements in call order, whatever order they completed in.
 */

export interface ToolBatchInput {
  readonly runId: string;
  readonly step: number;
  readonly calls: ReadonlyArray<PlannedCall>;
  readonly concurrency: number;
  /** The run was cancelled before the batch began: every call settles as cancelled, none runs. */
  readonly cancelled: boolean;
}

export interface ToolBatchContext extends ToolBatchInput {
  readonly settlements: ReadonlyArray<ToolSettlement | null>;
  /** Next index in `calls` that may be started (refused calls are started at once, they run nothing). */
  readonly nextIndex: number;
  readonly running: number;
  readonly cancelRequested: boolean;
}

/** A call's done event: its settlement is the call actor's output. */
export type CallDoneEvent = { type: `xstate.done.actor.${string}`; output: ToolSettlement };

export type ToolBatchEvent = ToolCallReport | CallDoneEvent | { type: "CANCEL" };

/** What the batch tells the run. */
export type ToolBatchReport = ToolCallReport;

export const callActorId = (index: number) => `call-${index}`;

export const toolBatchMachine = setup({
  types: {
    context: {} as ToolBatchContext,
    input: {} as ToolBatchInput,
    events: {} as ToolBatchEvent,
    output: {} as ReadonlyArray<ToolSettlement>,
  },
  actors: { toolCall: toolCallMachine },
  guards: {
    isLastSettlement: ({ context }) => context.settlements.filter((settlement) => settlement === null).length === 1,
  },
  actions: {
    spawnCalls: enqueueActions(({ context, enqueue }) => {
      context.calls.forEach((planned, index) => {
        enqueue.spawnChild("toolCall", {
          id: callActorId(index),
          input: { runId: context.runId, step: context.step, index, planned },
        });
      });
    }),
    /** Starts refused calls (they settle without running) and runnable calls while slots are free. */
    startCalls: enqueueActions(({ context, enqueue }) => {
      if (context.cancelRequested) return;
      let running = context.running;
      let next = context.nextIndex;
      while (next < context.calls.length) {
        const runnable = context.calls[next]!.disposition === "run";
        if (runnable && running >= Math.max(1, context.concurrency)) break;
        if (runnable) running += 1;
        enqueue.sendTo(callActorId(next), { type: "START" });
        next += 1;
      }
      enqueue.assign({ running, nextIndex: next });
    }),
    cancelIfCancelledAtStart: enqueueActions(({ context, enqueue }) => {
      if (!context.cancelled) return;
      context.calls.forEach((_, index) => {
        enqueue.sendTo(callActorId(index), { type: "CANCEL" });
      });
      enqueue.assign({ cancelRequested: true });
    }),
    cancelUnsettled: enqueueActions(({ context, enqueue }) => {
      context.settlements.forEach((settlement, index) => {
        if (settlement === null) enqueue.sendTo(callActorId(index), { type: "CANCEL" });
      });
      enqueue.assign({ cancelRequested: true });
    }),
    recordSettlement: assign(({ context }, params: { settlement: ToolSettlement }) => {
      const index = context.calls.findIndex((planned) => planned.call.id === params.settlement.callId);
      const settlements = [...context.settlements];
      settlements[index] = params.settlement;
      const ran = context.calls[index]?.disposition === "run" && index < context.nextIndex;
      return { settlements, running: ran ? Math.max(0, context.running - 1) : context.running };
    }),
    forwardStarted: sendParent((_, params: ToolBatchReport): ToolBatchReport => params),
  },
}).createMachine({
  id: "toolBatch",
  initial: "running",
  context: ({ input }) => ({
    ...input,
    settlements: input.calls.map(() => null),
    nextIndex: 0,
    running: 0,
    cancelRequested: false,
  }),
  states: {
    running: {
      entry: ["spawnCalls", "cancelIfCancelledAtStart", "startCalls"],
      on: {
        CALL_STARTED: {
          actions: { type: "forwardStarted", params: ({ event }) => event },
        },
        // A call settled: its actor (call-<index>) reached a final state.
        "xstate.done.actor.*": [
          {
            guard: "isLastSettlement",
            target: "done",
            actions: { type: "recordSettlement", params: ({ event }) => ({ settlement: event.output }) },
          },
          {
            actions: [
              { type: "recordSettlement", params: ({ event }) => ({ settlement: event.output }) },
              "startCalls",
            ],
          },
        ],
        CANCEL: { actions: "cancelUnsettled" },
      },
    },
    done: { type: "final" },
  },
  output: ({ context }) => context.settlements as ReadonlyArray<ToolSettlement>,
});
