import { assign, fromCallback, sendParent, sendTo, setup } from "xstate";
import type { AgentRunResult, ApprovalScope, JsonValue, LoopEvent } from "../../domain/index.js";

/**
 * A run as a child of a host's own statechart: the host invokes (or spawns) it with the run's
 * start options as input, sends it APPROVE / DENY / CANCEL, hears each of the run's events as
 * `agentloop.event` (and a refused decision as `agentloop.refused`), and gets the run's result as
 * the child's output when it is done. The run itself is the invoked `agentRun` actor, which the
 * runtime supplies (`fromAgentRun(runtime)`); stopping this actor stops that one, which cancels
 * the run. A run that cannot start is this actor's error.
 */

export type AgentRunControl =
  | {
      readonly type: "APPROVE";
      readonly callId: string;
      readonly scope?: ApprovalScope | undefined;
      readonly arguments?: JsonValue | undefined;
      readonly decidedBy?: string | undefined;
    }
  | {
      readonly type: "DENY";
      readonly callId: string;
      readonly message?: string | undefined;
      readonly decidedBy?: string | undefined;
    }
  | { readonly type: "CANCEL" };

/** What the invoked run tells this actor. */
export type AgentRunReport =
  | { readonly type: "RUN_EVENT"; readonly event: LoopEvent }
  | { readonly type: "RUN_ENDED"; readonly result: AgentRunResult }
  | { readonly type: "REFUSED"; readonly message: string }
  /** A run started asynchronously (a resume) could not start: this actor's error. */
  | { readonly type: "START_FAILED"; readonly message: string };

/** What the parent hears. */
export type AgentRunNotice =
  | { readonly type: "agentloop.event"; readonly event: LoopEvent }
  | { readonly type: "agentloop.refused"; readonly message: string };

export interface AgentRunContext<Request> {
  readonly request: Request;
  readonly result: AgentRunResult | null;
}

export const agentRunMachine = setup({
  types: {
    context: {} as AgentRunContext<unknown>,
    input: {} as unknown,
    events: {} as AgentRunControl | AgentRunReport,
    output: {} as AgentRunResult,
  },
  actors: {
    /** Provided by the runtime: starts the run from its input, takes AgentRunControl, reports AgentRunReport. */
    agentRun: fromCallback<AgentRunControl, unknown>(() => undefined),
  },
  actions: {
    forwardToRun: sendTo("run", ({ event }) => event),
    tellParentOfEvent: sendParent(({ event }) =>
      event.type === "RUN_EVENT" ? { type: "agentloop.event", event: event.event } : { type: "agentloop.ignored" },
    ),
    tellParentOfRefusal: sendParent(({ event }) =>
      event.type === "REFUSED" ? { type: "agentloop.refused", message: event.message } : { type: "agentloop.ignored" },
    ),
    // The only way a machine actor fails: the parent's `onError` gets a run that could not start,
    // whether it failed at once (the invoked actor threw) or while it was being resumed.
    failToStart: ({ event }) => {
      if (event.type === "START_FAILED") throw new Error(event.message);
    },
    recordResult: assign({ result: ({ event }) => (event.type === "RUN_ENDED" ? event.result : null) }),
  },
}).createMachine({
  id: "agentRun",
  initial: "running",
  context: ({ input }) => ({ request: input, result: null }),
  states: {
    running: {
      invoke: {
        id: "run",
        src: "agentRun",
        input: ({ context }: { context: AgentRunContext<unknown> }) => context.request,
      },
      on: {
        APPROVE: { actions: "forwardToRun" },
        DENY: { actions: "forwardToRun" },
        CANCEL: { actions: "forwardToRun" },
        RUN_EVENT: { actions: "tellParentOfEvent" },
        REFUSED: { actions: "tellParentOfRefusal" },
        START_FAILED: { actions: "failToStart" },
        RUN_ENDED: { target: "ended", actions: "recordResult" },
      },
    },
    ended: { type: "final" },
  },
  output: ({ context }) => context.result!,
});
