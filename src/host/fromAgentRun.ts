import { fromCallback } from "xstate";
import { type AgentRunControl, type AgentRunReport, agentRunMachine } from "../machines/agentRun/machine.js";
import type { AgentRuntime, ResumeRunOptions, RunHandle, StartRunOptions } from "../runtime/AgentRuntime.js";

/**
 * XState actor logic for a host's own statechart to `invoke` or `spawn` a run of `runtime`:
 * input the run's start options (a named agent's `{ agent, sessionId, input }` included), or
 * `{ resumeRunId, …resume options }` to continue a run from its ledger (`resumeRun`); output
 * the run's `AgentRunResult`. The run's events reach the parent as `{ type: "agentloop.event",
 * event }`; APPROVE / DENY / CANCEL sent to the child go to the run (a refused decision comes back
 * as `agentloop.refused`); stopping the child — its parent state left, or the parent stopped —
 * cancels the run. A run that cannot start (an unknown agent, a disposed runtime, a run that cannot
 * be resumed) is the child's error (`onError`). The run's own actor is this actor's child, in the host's actor system: with
 * the host's `inspect` set, the inspector shows the run (and its tool batches) under the actor
 * that invoked it; the runtime's own `inspect` sees the runs it starts itself.
 */
export function fromAgentRun(runtime: AgentRuntime) {
  return agentRunMachine.provide({
    actors: {
      agentRun: fromCallback<AgentRunControl, unknown>(({ input, sendBack, receive, self }) => {
        let stopped = false;
        let ended = false;
        let run: RunHandle | undefined;
        const pending: AgentRunControl[] = [];
        const report = (event: AgentRunReport) => {
          if (!stopped) sendBack(event);
        };
        const refused = (error: unknown) => report({ type: "REFUSED", message: messageOf(error) });
        const control = (handle: RunHandle, event: AgentRunControl) => {
          if (event.type === "CANCEL") handle.cancel();
          else if (event.type === "APPROVE") {
            const { type: _type, callId, ...options } = event;
            handle.approve(callId, options).catch(refused);
          } else {
            const { type: _type, callId, ...options } = event;
            handle.deny(callId, options).catch(refused);
          }
        };
        const attach = (handle: RunHandle) => {
          run = handle;
          if (stopped) {
            handle.cancel();
            return;
          }
          const forwarded = (async () => {
            for await (const event of handle.events) report({ type: "RUN_EVENT", event });
          })();
          // The result after every event has gone to the parent.
          void Promise.all([handle.result, forwarded]).then(
            ([result]) => {
              // Ended first: reporting it finishes this actor, whose clean-up must not cancel the run.
              ended = true;
              report({ type: "RUN_ENDED", result });
            },
            () => undefined,
          );
          for (const event of pending.splice(0)) control(handle, event);
        };
        // The run's actor is this actor's child, so the host's inspector shows it under the host.
        const request = input as AgentRunRequest;
        if ("resumeRunId" in request && request.resumeRunId !== undefined) {
          const { resumeRunId, ...options } = request;
          runtime.resumeChildRun(self, resumeRunId, options).then(attach, (error: unknown) => {
            report({ type: "START_FAILED", message: messageOf(error) });
          });
        } else attach(runtime.startChildRun(self, request as StartRunOptions));
        receive((event) => {
          // The run actor, as this actor's child, reports its own end here too; its result
          // comes through `run.result`.
          if (event.type.startsWith("xstate.")) return;
          // Controls sent while a resumed run is still being read from the ledger wait for it.
          if (run === undefined) pending.push(event);
          else control(run, event);
        });
        return () => {
          stopped = true;
          if (!ended) run?.cancel();
        };
      }),
    },
  });
}

/** A run to continue from its ledger (`runtime.resumeRun`), as `fromAgentRun`'s input. */
export interface ResumeAgentRun extends ResumeRunOptions {
  readonly resumeRunId: string;
}

/** `fromAgentRun`'s input: a run to start, or one to resume. */
export type AgentRunRequest = StartRunOptions | ResumeAgentRun;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
