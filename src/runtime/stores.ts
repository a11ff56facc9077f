import { createStore } from "@xstate/store";
import type { ContextMessage, RunStatus } from "../domain/index.js";

/**
 * The current run's append-only in-memory transcript: what the
 * provider sees next. Only the run's actors append to it, after the matching ledger rows are
 * durable; hosts and UIs may subscribe.
 */
export function makeTranscriptStore(initial: ReadonlyArray<ContextMessage>) {
  return createStore({
    context: { messages: initial as ReadonlyArray<ContextMessage> },
    on: {
      append: (context, event: { messages: ReadonlyArray<ContextMessage> }) =>
        event.messages.length === 0 ? context : { messages: [...context.messages, ...event.messages] },
    },
  });
}
export type TranscriptStore = ReturnType<typeof makeTranscriptStore>;

export interface ActiveRun {
  readonly runId: string;
  readonly traceId: string;
  readonly sessionId: string;
  readonly startedAt: string;
  readonly status: RunStatus;
}

/** The runtime's registry of active runs; a run leaves it when its terminal state is durable. */
export function makeRunRegistry() {
  return createStore({
    context: { runs: {} as Readonly<Record<string, ActiveRun>> },
    on: {
      started: (context, event: { run: ActiveRun }) => ({ runs: { ...context.runs, [event.run.runId]: event.run } }),
      ended: (context, event: { runId: string }) => {
        const { [event.runId]: _ended, ...runs } = context.runs;
        return { runs };
      },
    },
  });
}
export type RunRegistry = ReturnType<typeof makeRunRegistry>;
