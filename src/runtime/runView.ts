import type { Actor, Observer, StateValue, Subscription } from "xstate";
import type { AgentRunResult, LoopEvent } from "../domain/index.js";
import type { RunContext } from "../machines/run/context.js";
import type { runMachine } from "../machines/run/machine.js";

/**
 * What a host sees of a run's actor: its state, its changes and the events it emits — and
 * nothing it could send. The run machine's internal events (a provider's answer, a verdict, a
 * stop with an outcome) only come from the run's own I/O; a handle that forwarded `send` would
 * let any caller end a run `completed` without evidence. The snapshot a host gets carries no
 * references to the run's child actors for the same reason.
 */

export interface RunSnapshotView {
  readonly status: "active" | "done" | "error" | "stopped";
  readonly value: StateValue;
  readonly context: RunContext;
  /** The result once the run reached its terminal state. */
  readonly output: AgentRunResult | undefined;
  readonly tags: ReadonlySet<string>;
  /** Whether the run is in the given state (as XState's `snapshot.matches`). */
  matches(value: StateValue): boolean;
  hasTag(tag: string): boolean;
}

export interface RunView {
  /** The run id (the actor's id). */
  readonly id: string;
  getSnapshot(): RunSnapshotView;
  /** Called with each new snapshot; `complete` when the run's actor stops (it ended or was parked). */
  subscribe(observer: Partial<Observer<RunSnapshotView>> | ((snapshot: RunSnapshotView) => void)): Subscription;
  /** The run's emitted events (`commentary`, `tool_started`, `approval_requested`, `done` …), or all with `*`. */
  on<T extends LoopEvent["type"] | "*">(
    type: T,
    handler: (event: T extends "*" ? LoopEvent : Extract<LoopEvent, { type: T }>) => void,
  ): Subscription;
}

type RunActor = Actor<typeof runMachine>;
type RunSnapshot = ReturnType<RunActor["getSnapshot"]>;

const viewOf = (snapshot: RunSnapshot): RunSnapshotView => ({
  status: snapshot.status,
  value: snapshot.value,
  context: snapshot.context,
  output: snapshot.status === "done" ? snapshot.output : undefined,
  tags: snapshot.tags,
  matches: (value) => snapshot.matches(value as Parameters<RunSnapshot["matches"]>[0]),
  hasTag: (tag) => snapshot.hasTag(tag as Parameters<RunSnapshot["hasTag"]>[0]),
});

export function runView(actor: RunActor): RunView {
  return Object.freeze({
    id: actor.id,
    getSnapshot: () => viewOf(actor.getSnapshot()),
    subscribe: (observer: Partial<Observer<RunSnapshotView>> | ((snapshot: RunSnapshotView) => void)) => {
      const next = typeof observer === "function" ? observer : observer.next?.bind(observer);
      return actor.subscribe({
        next: (snapshot) => next?.(viewOf(snapshot)),
        error: (error) => (typeof observer === "function" ? undefined : observer.error?.(error)),
        complete: () => (typeof observer === "function" ? undefined : observer.complete?.()),
      });
    },
    on: (type, handler) => actor.on(type as "*", handler as (event: LoopEvent) => void),
  } satisfies RunView);
}
