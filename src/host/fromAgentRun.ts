import { fromCallback } from "xstate";
import { type AgentRunControl, type AgentRunReport, agentRunMachine } from "../machines/agentRun/machine.js";
import type { AgentRuntime, StartRunOptions } from "../runtime/AgentRuntime.js";

/**
 * XState actor logic for a host's own statechart to `invoke` or `spawn` a run of `runtime`:
 * input the run's start options (a named agent's `{ agent, sessionId, input }` included); output
 * the run's `AgentRunResult`. The run's events reach the parent as `{ type: "agentloop.event",
 * event }`; APPROVE / DENY / CANCEL sent to the child go to the run (a refused decision comes back
 * as `agentloop.refused`); stopping the child — its parent state left, or the parent stopped —
 * cancels the run. A run that cannot start (an unknown agent, a disposed runtime) is the child's
 * error (`onError`). The run's own actor is this actor's child, in the host's actor system: with
 * the host's `inspect` set, the inspector shows the run (and its tool batches) under the actor
 * that invoked it; the runtime's own `inspect` sees the runs it starts itself.
 */
export function fromAgentRun(runtime: AgentRuntime) {
  return agentRunMachine.provide({
    actors: {
      agentRun: fromCallback<AgentRunControl, unknown>(({ input, sendBack, receive, self }) => {
        // The run's actor is this actor's child, so the host's inspector shows it under the host.
        const run = runtime.startChildRun(self, input as StartRunOptions);
        let ended = false;
        let stopped = false;
        const report = (event: AgentRunReport) => {
          if (!stopped) sendBack(event);
        };
        const forwarded = (async () => {
          for await (const event of run.events) report({ type: "RUN_EVENT", event });
        })();
        // The result after every event has gone to the parent.
        void Promise.all([run.result, forwarded]).then(
          ([result]) => {
            // Ended first: reporting it finishes this actor, whose clean-up must not cancel the run.
            ended = true;
            report({ type: "RUN_ENDED", result });
          },
          () => undefined,
        );
        const refused = (error: unknown) =>
          report({ type: "REFUSED", message: error instanceof Error ? error.message : String(error) });
        receive((control) => {
          // The run actor, as this actor's child, reports its own end here too; its result
          // comes through `run.result`.
          if (control.type.startsWith("xstate.")) return;
          if (control.type === "CANCEL") run.cancel();
          else if (control.type === "APPROVE") {
            const { type: _type, callId, ...options } = control;
            run.approve(callId, options).catch(refused);
          } else {
            const { type: _type, callId, ...options } = control;
            run.deny(callId, options).catch(refused);
          }
        });
        return () => {
          stopped = true;
          if (!ended) run.cancel();
        };
      }),
    },
  });
}
