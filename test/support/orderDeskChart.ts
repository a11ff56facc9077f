import { type AnyActorLogic, assign, sendTo, setup } from "xstate";
import type { AgentRunResult, TerminalState } from "../../src/domain/index.js";
import type { AgentRunNotice } from "../../src/machines/agentRun/machine.js";

/**
 * A host's own statechart, as a host would write one: an order desk that has the agent answer,
 * approves what the run asks, and branches on how the run ended — an answer backed by evidence
 * goes out, a withdrawn request is closed, anything else goes to a person.
 */
export function orderDeskChart(agentRun: AnyActorLogic, input: unknown) {
  return setup({
    types: {
      context: {} as { result: AgentRunResult | null },
      events: {} as AgentRunNotice,
    },
    actors: { agentRun },
    guards: {
      runAsksApproval: ({ event }) => event.type === "agentloop.event" && event.event.type === "approval_requested",
      runCompleted: ({ event }) => (event as { output?: AgentRunResult }).output?.terminalState === "completed",
      runCancelled: ({ event }) => (event as { output?: AgentRunResult }).output?.terminalState === "cancelled",
    },
    actions: {
      approveWhatRunAsks: sendTo("run", ({ event }) => ({
        type: "APPROVE" as const,
        callId: event.type === "agentloop.event" && event.event.type === "approval_requested" ? event.event.callId : "",
        decidedBy: "order-desk",
      })),
      keepResult: assign({ result: ({ event }) => (event as { output?: AgentRunResult }).output ?? null }),
    },
  }).createMachine({
    id: "orderDesk",
    context: { result: null },
    initial: "answering",
    states: {
      answering: {
        invoke: {
          id: "run",
          src: "agentRun",
          input,
          onDone: [
            { guard: "runCompleted", target: "answered", actions: "keepResult" },
            { guard: "runCancelled", target: "withdrawn", actions: "keepResult" },
            { target: "handedToPerson", actions: "keepResult" },
          ],
          onError: "handedToPerson",
        },
        on: { "agentloop.event": { guard: "runAsksApproval", actions: "approveWhatRunAsks" } },
      },
      answered: { type: "final" },
      withdrawn: { type: "final" },
      handedToPerson: { type: "final" },
    },
  });
}

/** Where the order desk ends for each way its run ends. */
export const ORDER_DESK_END: Record<TerminalState, string> = {
  completed: "answered",
  cancelled: "withdrawn",
  unverified: "handedToPerson",
  incomplete: "handedToPerson",
  failed: "handedToPerson",
};
