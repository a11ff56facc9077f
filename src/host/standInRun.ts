import { type EventObject, fromCallback } from "xstate";
import {
  type AgentRunResult,
  type LoopEvent,
  type ReasonCode,
  TerminalState,
  type TerminalState as TerminalStateName,
} from "../domain/index.js";
import { type AgentRunControl, type AgentRunReport, agentRunMachine } from "../machines/agentRun/machine.js";
import type { AgentRunRequest } from "./fromAgentRun.js";

/**
 * Stand-ins for the runs a host's own statechart invokes with `fromAgentRun`, so the host's chart
 * is tested over every way a run can end without a model, a runtime or a database.
 */

/** How a stand-in run goes: the events its parent hears, then its end. */
export interface StandInRunScript {
  readonly terminalState: TerminalStateName;
  /** Defaults to the usual reason of the state (`answered`, `claim_without_receipt`, …). */
  readonly terminalReason?: ReasonCode | undefined;
  /**
   * Sent to the parent as `agentloop.event`, in order. After an `approval_requested`, the run
   * waits for the parent's APPROVE or DENY of that call before it goes on.
   */
  readonly events?: ReadonlyArray<LoopEvent> | undefined;
  readonly finalText?: string | undefined;
}

const USUAL_REASON: Record<TerminalStateName, ReasonCode> = {
  completed: "answered",
  unverified: "claim_without_receipt",
  incomplete: "max_steps_reached",
  failed: "provider_error",
  cancelled: "cancelled_by_user",
};

/** The result a stand-in run with `script` ends with. */
export function standInResult(script: StandInRunScript, request?: AgentRunRequest): AgentRunResult {
  const sessionId = request !== undefined && "sessionId" in request ? request.sessionId : "stand-in";
  const runId = request !== undefined && "resumeRunId" in request ? request.resumeRunId : `stand-in-${sessionId}`;
  return {
    runId,
    traceId: "0".repeat(32),
    sessionId,
    terminalState: script.terminalState,
    terminalReason: script.terminalReason ?? USUAL_REASON[script.terminalState],
    finalText: script.finalText ?? `The stand-in run ended ${script.terminalState}.`,
    steps: 1,
    correctionTurns: 0,
    receipts: [],
  };
}

/**
 * Actor logic with `fromAgentRun`'s input, events and output, whose run goes as `script` says
 * (or as `script(request)` says, to vary by the input). A CANCEL before the end ends it
 * `cancelled`; stopping it stops it.
 */
export function standInRun(script: StandInRunScript | ((request: AgentRunRequest) => StandInRunScript)) {
  return agentRunMachine.provide({
    actors: {
      agentRun: fromCallback<AgentRunControl, unknown>(({ input, sendBack, receive }) => {
        const request = input as AgentRunRequest;
        const chosen = typeof script === "function" ? script(request) : script;
        const events = chosen.events ?? [];
        let next = 0;
        let waitingFor: string | undefined;
        let ended = false;
        const end = (result: AgentRunResult) => {
          ended = true;
          sendBack({ type: "RUN_ENDED", result } satisfies AgentRunReport);
        };
        const goOn = () => {
          while (next < events.length) {
            const event = events[next++]!;
            sendBack({ type: "RUN_EVENT", event } satisfies AgentRunReport);
            if (event.type === "approval_requested") {
              waitingFor = event.callId;
              return;
            }
          }
          end(standInResult(chosen, request));
        };
        receive((control) => {
          if (ended || control.type.startsWith("xstate.")) return;
          if (control.type === "CANCEL") end(standInResult({ terminalState: "cancelled" }, request));
          else if (control.callId !== waitingFor) {
            const message = `stand-in run: no call ${control.callId} waits for a decision`;
            sendBack({ type: "REFUSED", message } satisfies AgentRunReport);
          } else {
            waitingFor = undefined;
            goOn();
          }
        });
        goOn();
      }),
    },
  });
}

/** The event XState sends a parent when the run it invoked as `id` ends. */
export interface RunEnding {
  readonly type: `xstate.done.actor.${string}`;
  readonly output: AgentRunResult;
}

/**
 * For @xstate/graph path tests of a host's chart: the event that ends the run invoked with `id`,
 * once for each terminal state (`scripts` changes what a state's result says). A model-based
 * traversal does not run invoked actors, so these stand for their ends among the chart's events;
 * `TEvent` is the chart's event type (`EventFrom<typeof chart>`), which XState's done events are
 * not declared in.
 */
export function runEndings<TEvent extends EventObject = RunEnding>(
  id: string,
  scripts: Partial<Record<TerminalStateName, Omit<StandInRunScript, "terminalState">>> = {},
): TEvent[] {
  return TerminalState.options.map(
    (terminalState): RunEnding => ({
      type: `xstate.done.actor.${id}`,
      output: standInResult({ ...scripts[terminalState], terminalState }),
    }),
  ) as unknown as TEvent[];
}
