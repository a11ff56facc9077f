import { type AnyActorRef, assign, type EventObject, enqueueActions, setup } from "xstate";
import type {
  ApprovalDecided,
  ApprovalNotice,
  ApprovalOutcome,
  ApprovalRequest,
  BatchReply,
  PlannedCall,
  RunCommand,
  RunReply,
  ToolSettlement,
} from "../../domain/index.js";
import { approvalMachine } from "../approval/machine.js";
import {
  approvalEvidence,
  cancelledSettlement,
  refusedSettlement,
  resultSettlement,
  timedOutSettlement,
  unapprovedSettlement,
} from "../settlements.js";

/**
 * The pending set of one step's tool calls (a step of several calls, or of a call that is refused
 * or needs approval: one call that may run, the run executes alone). Each call's lifecycle is data in this machine —
 * planned → running → settled (ok | error | timed out | cancelled) — not an actor of its own: the
 * run's I/O actor (its sibling `io`) executes a call when asked (EXECUTE) and
 * reports back to this batch (CALL_STARTED, CALL_SETTLED); the batch tells the run each start
 * (TOOL_STARTED), which the run shows its host. At most `concurrency` calls run at once; refused calls settle at
 * once without running. One timer serves every call's timeout: it is set for the earliest
 * deadline among the running calls, from the I/O actor's clock readings. The output lists the
 * settlements in call order, whatever order they completed in.
 *
 * A call that needs approval first waits in an `approval` actor of its own (spawned as
 * `approval-<index>`, see ../approval/machine.ts) and takes no slot while it waits: approved, it
 * runs like any other call (with the edited arguments, if any); denied, expired or cancelled, it
 * settles without running. A call's approval lives here and nowhere else: the I/O actor answers
 * the batch's request and hands it each decision; the run hears only what it shows its host —
 * that a call whose request is durable waits (APPROVAL_WAITING), and that none waits any more.
 * The I/O actor is told when a wait ends (APPROVAL_CLOSED) so it stops looking for a decision.
 */

export interface ToolBatchInput {
  readonly runId: string;
  readonly step: number;
  readonly calls: ReadonlyArray<PlannedCall>;
  readonly concurrency: number;
}

/** The id under which the run invokes its I/O actor; the batch, its sibling, finds it there. */
export const RUN_IO_ID = "io";

/**
 * The run's I/O actor: the batch's sibling, found through the run that invoked both — not by a
 * system id, so that several runs may share one actor system (a run a host's statechart invokes
 * lives in the host's system, as its child). Outside a live run (a pure `transition`, a graph
 * traversal) there is none: the commands are still decided, and nothing executes them.
 */
const ioOf = (self: AnyActorRef): AnyActorRef =>
  (self._parent?.getSnapshot() as { children?: Record<string, AnyActorRef> } | undefined)?.children?.[
    RUN_IO_ID
  ] as AnyActorRef;

export interface BatchCall {
  readonly planned: PlannedCall;
  readonly dispatched: boolean;
  /** ISO time the executor reported it started; null until then. */
  readonly startedAt: string | null;
  /** The I/O actor's clock (ms) past which the call has timed out; null until it started. */
  readonly deadline: number | null;
  readonly settlement: ToolSettlement | null;
  /** `waiting` while its approval actor runs; `approved` once it may run; `none`: needs none. */
  readonly approval: "none" | "waiting" | "approved";
  /** Whether the run was told this call waits (its request is durable); never before, at most once. */
  readonly approvalShown: boolean;
  /** The decision that let it run (its receipt carries it as evidence). */
  readonly approvalOutcome: ApprovalOutcome | null;
}

export interface ToolBatchContext {
  readonly runId: string;
  readonly step: number;
  readonly concurrency: number;
  readonly calls: ReadonlyArray<BatchCall>;
  /** The latest clock reading (ms) the I/O actor reported. */
  readonly clock: number;
}

const approvalActorId = (index: number) => `approval-${index}`;
const APPROVAL_DONE = "xstate.done.actor.approval-";

/** A call's wait ended: the call (by index) and the decision its approval actor gave. */
export interface ApprovalEnd {
  readonly index: number;
  readonly outcome: ApprovalOutcome;
}

/**
 * The end of an approval actor, read from XState's done event (a wildcard transition's event is
 * untyped). Only approval actors are children of the batch; anything else is a defect and fails
 * the batch, which ends the run `failed`.
 */
function approvalEnd(event: EventObject): ApprovalEnd {
  const output = (event as { output?: unknown }).output;
  const index = Number(event.type.slice(APPROVAL_DONE.length));
  if (
    !event.type.startsWith(APPROVAL_DONE) ||
    !Number.isInteger(index) ||
    typeof output !== "object" ||
    output === null
  ) {
    throw new Error(`the tool batch cannot read ${event.type}`);
  }
  return { index, outcome: output as ApprovalOutcome };
}

export type ToolBatchEvent = BatchReply | ApprovalDecided | { readonly type: "CANCEL" };

/** Longest delay a timer takes; used while no running call has reported its start. */
const NO_DEADLINE = 2 ** 31 - 1;

const isRunning = (call: BatchCall) => call.dispatched && call.settlement === null;
const isShownWaiting = (call: BatchCall) => call.approval === "waiting" && call.approvalShown;

/**
 * The run, which invoked the batch. A batch on its own (a pure `transition`, a graph traversal) has
 * none: what it would tell the run is still decided, and goes nowhere.
 */
const runOf = (self: AnyActorRef): AnyActorRef => self._parent ?? self;

/** The calls the run was told wait for approval and that still wait, as the requests it announced. */
export const shownApprovalRequests = (context: ToolBatchContext): ReadonlyArray<ApprovalRequest> =>
  context.calls.filter(isShownWaiting).map(({ planned }) => ({
    runId: context.runId,
    step: context.step,
    callId: planned.call.id,
    toolName: planned.call.name,
    arguments: planned.call.arguments,
    reason: planned.approval?.reason ?? "",
  }));

/** The run hears that no call waits any more when the last one it was shown stops waiting. */
const noneWaitingAfter = (before: ReadonlyArray<BatchCall>, after: ReadonlyArray<BatchCall>) =>
  before.some(isShownWaiting) && !after.some(isShownWaiting);

function nextDeadline(calls: ReadonlyArray<BatchCall>): number | null {
  let earliest: number | null = null;
  for (const call of calls) {
    if (isRunning(call) && call.deadline !== null && (earliest === null || call.deadline < earliest)) {
      earliest = call.deadline;
    }
  }
  return earliest;
}

const withCall = (calls: ReadonlyArray<BatchCall>, index: number, change: Partial<BatchCall>) =>
  calls.map((call, i) => (i === index ? { ...call, ...change } : call));

export const toolBatchMachine = setup({
  types: {
    context: {} as ToolBatchContext,
    input: {} as ToolBatchInput,
    events: {} as ToolBatchEvent,
    output: {} as ReadonlyArray<ToolSettlement>,
  },
  guards: {
    allSettled: ({ context }) => context.calls.every((call) => call.settlement !== null),
  },
  actors: { approval: approvalMachine },
  actions: {
    /** Settles every refused call at once and asks for runnable ones, in call order, while slots are free. */
    startCalls: enqueueActions(({ context, enqueue, self }) => {
      let running = context.calls.filter(isRunning).length;
      const slots = Math.max(1, context.concurrency);
      const calls = [...context.calls];
      for (let index = 0; index < calls.length; index++) {
        const call = calls[index]!;
        if (call.dispatched || call.settlement !== null) continue;
        if (call.planned.disposition !== "run") {
          calls[index] = { ...call, settlement: refusedSettlement(call.planned) };
          continue;
        }
        const { approval } = call.planned;
        if (approval && call.approval === "none") {
          calls[index] = { ...call, approval: "waiting" };
          enqueue.spawnChild("approval", {
            id: approvalActorId(index),
            input: {
              callId: call.planned.call.id,
              toolName: call.planned.call.name,
              arguments: call.planned.call.arguments,
              reason: approval.reason,
              timeoutMs: approval.timeoutMs,
            },
          });
          enqueue.sendTo(ioOf(self), {
            type: "REQUEST_APPROVAL",
            runId: context.runId,
            step: context.step,
            callId: call.planned.call.id,
            toolName: call.planned.call.name,
            arguments: call.planned.call.arguments,
            reason: approval.reason,
            timeoutMs: approval.timeoutMs,
            replyTo: self,
          } satisfies RunCommand);
          continue;
        }
        if (call.approval === "waiting") continue;
        if (running >= slots) continue;
        running += 1;
        calls[index] = { ...call, dispatched: true };
        const outcome = call.approvalOutcome;
        const edited = outcome?.decision === "approved" && outcome.arguments !== undefined;
        const command: RunCommand = {
          type: "EXECUTE",
          runId: context.runId,
          step: context.step,
          index,
          planned: edited
            ? { ...call.planned, call: { ...call.planned.call, arguments: outcome.arguments! } }
            : call.planned,
          replyTo: self,
        };
        enqueue.sendTo(ioOf(self), command);
      }
      enqueue.assign({ calls });
    }),
    /** A call's start record is durable: its timeout counts from now, and the run tells its host. */
    noteStarted: enqueueActions(({ context, enqueue, self }, params: Extract<BatchReply, { type: "CALL_STARTED" }>) => {
      const call = context.calls[params.index];
      if (!call) return enqueue.assign({ clock: Math.max(context.clock, params.at) });
      enqueue.sendTo(runOf(self), {
        type: "TOOL_STARTED",
        step: context.step,
        callId: call.planned.call.id,
        toolName: call.planned.call.name,
      } satisfies RunReply);
      if (call.settlement !== null) return enqueue.assign({ clock: Math.max(context.clock, params.at) });
      enqueue.assign({
        clock: Math.max(context.clock, params.at),
        calls: withCall(context.calls, params.index, {
          startedAt: params.startedAt,
          deadline: params.at + call.planned.timeoutMs,
        }),
      });
    }),
    noteSettled: assign(({ context }, params: Extract<BatchReply, { type: "CALL_SETTLED" }>) => {
      const call = context.calls[params.index];
      // A call already timed out or cancelled keeps that settlement: a late result changes nothing.
      if (!call || call.settlement !== null) return { clock: Math.max(context.clock, params.at) };
      const settlement = resultSettlement(call.planned, params.result);
      return {
        clock: Math.max(context.clock, params.at),
        calls: withCall(context.calls, params.index, {
          settlement: call.approvalOutcome
            ? { ...settlement, evidence: { ...settlement.evidence, approval: approvalEvidence(call.approvalOutcome) } }
            : settlement,
        }),
      };
    }),
    /**
     * A call's request is durable: the run may show it to its host now — unless the wait already
     * ended (a short expiry, a cancel) or the run was told before.
     */
    showApproval: enqueueActions(
      ({ context, enqueue, self }, params: Extract<BatchReply, { type: "APPROVAL_REQUESTED" }>) => {
        const index = context.calls.findIndex((call) => call.planned.call.id === params.callId);
        const call = context.calls[index];
        if (call?.approval !== "waiting" || call.approvalShown || call.settlement !== null) return;
        enqueue.assign({ calls: withCall(context.calls, index, { approvalShown: true }) });
        const { type: _reply, ...request } = params;
        enqueue.sendTo(runOf(self), { type: "APPROVAL_WAITING", ...request } satisfies ApprovalNotice);
      },
    ),
    /** A decision for a waiting call goes to that call's approval actor; others ignore it. */
    forwardDecision: enqueueActions(({ context, enqueue }, params: ApprovalDecided) => {
      const index = context.calls.findIndex(
        (call) => call.planned.call.id === params.callId && call.approval === "waiting" && call.settlement === null,
      );
      if (index >= 0) {
        enqueue.sendTo(approvalActorId(index), { type: "DECIDED", callId: params.callId, decision: params.decision });
      }
    }),
    /** A call's wait ended. Approved, it may run; otherwise it settles without running. */
    noteApproval: enqueueActions(({ context, enqueue, self }, { index, outcome }: ApprovalEnd) => {
      const call = context.calls[index];
      if (call?.approval !== "waiting" || call.settlement !== null) return;
      enqueue.sendTo(ioOf(self), { type: "APPROVAL_CLOSED", callId: call.planned.call.id } satisfies RunCommand);
      const calls = withCall(
        context.calls,
        index,
        outcome.decision === "approved"
          ? { approval: "approved", approvalOutcome: outcome }
          : { approval: "none", settlement: unapprovedSettlement(call.planned, outcome) },
      );
      enqueue.assign({ calls });
      if (noneWaitingAfter(context.calls, calls)) {
        enqueue.sendTo(runOf(self), { type: "NO_APPROVAL_WAITING" } satisfies ApprovalNotice);
      }
    }),
    /** The timer fired: every running call whose deadline has come times out and is aborted. */
    expireDueCalls: enqueueActions(({ context, enqueue, self }) => {
      const now = nextDeadline(context.calls) ?? context.clock;
      const calls = context.calls.map((call) => {
        if (!isRunning(call) || call.deadline === null || call.deadline > now) return call;
        enqueue.sendTo(ioOf(self), { type: "ABORT", callId: call.planned.call.id } satisfies RunCommand);
        return { ...call, settlement: timedOutSettlement(call.planned, call.startedAt) };
      });
      enqueue.assign({ calls, clock: Math.max(context.clock, now) });
    }),
    cancelUnsettled: enqueueActions(({ context, enqueue, self }) => {
      const calls = context.calls.map((call, index) => {
        if (call.settlement !== null) return call;
        if (call.approval === "waiting") {
          enqueue.sendTo(approvalActorId(index), { type: "CANCEL" });
          enqueue.sendTo(ioOf(self), { type: "APPROVAL_CLOSED", callId: call.planned.call.id } satisfies RunCommand);
          return {
            ...call,
            approval: "none" as const,
            settlement: unapprovedSettlement(call.planned, { decision: "cancelled", decidedBy: "runtime" }),
          };
        }
        if (call.dispatched) {
          enqueue.sendTo(ioOf(self), { type: "ABORT", callId: call.planned.call.id } satisfies RunCommand);
        }
        return { ...call, settlement: cancelledSettlement(call.planned, call.startedAt) };
      });
      enqueue.assign({ calls });
      if (noneWaitingAfter(context.calls, calls)) {
        enqueue.sendTo(runOf(self), { type: "NO_APPROVAL_WAITING" } satisfies ApprovalNotice);
      }
    }),
  },
  delays: {
    untilNextDeadline: ({ context }) => {
      const deadline = nextDeadline(context.calls);
      return deadline === null ? NO_DEADLINE : Math.max(0, deadline - context.clock);
    },
  },
}).createMachine({
  id: "toolBatch",
  initial: "running",
  context: ({ input }) => ({
    runId: input.runId,
    step: input.step,
    concurrency: input.concurrency,
    calls: input.calls.map((planned) => ({
      planned,
      dispatched: false,
      startedAt: null,
      deadline: null,
      settlement: null,
      approval: "none" as const,
      approvalShown: false,
      approvalOutcome: null,
    })),
    clock: 0,
  }),
  states: {
    running: {
      // Entered again after each report: frees slots and sets the timer for the new earliest deadline.
      entry: "startCalls",
      always: { guard: "allSettled", target: "done" },
      after: { untilNextDeadline: { target: "running", reenter: true, actions: "expireDueCalls" } },
      on: {
        CALL_STARTED: {
          target: "running",
          reenter: true,
          actions: { type: "noteStarted", params: ({ event }) => event },
        },
        CALL_SETTLED: {
          target: "running",
          reenter: true,
          actions: { type: "noteSettled", params: ({ event }) => event },
        },
        APPROVAL_REQUESTED: { actions: { type: "showApproval", params: ({ event }) => event } },
        APPROVAL_DECIDED: { actions: { type: "forwardDecision", params: ({ event }) => event } },
        "xstate.done.actor.*": {
          target: "running",
          reenter: true,
          actions: {
            type: "noteApproval",
            params: ({ event }: { event: EventObject }) => approvalEnd(event),
          },
        },
        CANCEL: { target: "done", actions: "cancelUnsettled" },
      },
    },
    done: { type: "final" },
  },
  output: ({ context }) => context.calls.map((call) => call.settlement!),
});
