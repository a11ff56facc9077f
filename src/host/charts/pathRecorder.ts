import type { InspectionEvent } from "xstate";
import type { StateEntry } from "./runPath.js";

/**
 * Records, through XState's inspection API, the path each run actor takes: every state it enters
 * and every transition it takes (as the machine declares them, so they name the drawn edges), and
 * the ledger's high-water mark at each state entry.
 *
 * Why the mark is exact: the run machine writes nothing itself; each ledger write is a command it
 * sends to its I/O actor, which answers only once the rows are durable. A state is left on such
 * an answer, and the next state's command is sent in that same macrostep, after its microsteps and
 * then on a forked fiber, so at a microstep the ledger holds every row of the state being left and
 * none of the state being entered. `watermark` must therefore read the ledger synchronously (a
 * second SQLite connection); without one, paths carry no events.
 *
 * One write is answered before its rows are durable: a step whose one call runs alone has its
 * tool_call rows held by the runtime and committed with that call's start record, in
 * `executingTools`. The run counts them as recorded when RECORD_CALLS is answered
 * (`context.lastSequence`), so the mark is the larger of the two: rows are placed in the state
 * whose command recorded them, wherever the transaction that carried them ran.
 */

export interface RecordedPath {
  /** State entries in order; `sequenceAtEntry` is -1 when there is no watermark. */
  readonly entries: ReadonlyArray<StateEntry>;
  readonly taken: ReadonlyArray<{ readonly from: string; readonly to: string }>;
  /** Whether `sequenceAtEntry` was read from the ledger. */
  readonly exact: boolean;
}

/** A state value as a dotted path of its first region: `{ active: { work: "sampling" } }` → `active.work.sampling`. */
export function statePathOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (value && typeof value === "object") {
    const [key, inner] = Object.entries(value as Record<string, unknown>)[0] ?? ["?", ""];
    const rest = statePathOf(inner);
    return rest ? `${key}.${rest}` : key;
  }
  return "";
}

interface TransitionLike {
  readonly source: { readonly path: ReadonlyArray<string> };
  readonly target?: ReadonlyArray<{ readonly path: ReadonlyArray<string> }> | undefined;
}

interface Recording {
  entries: StateEntry[];
  taken: { from: string; to: string }[];
}

export class RunPathRecorder {
  private readonly runs = new Map<string, Recording>();

  /**
   * @param machineId only root actors of this machine are recorded (the run machine: "run").
   * @param watermark the run's last durable ledger sequence, read synchronously; undefined if unknown.
   */
  constructor(
    private readonly machineId: string,
    private readonly watermark?: (runId: string) => number | undefined,
  ) {}

  /** Pass as the runtime's `inspect` option. */
  readonly inspect = (event: InspectionEvent): void => {
    if (event.type !== "@xstate.microstep" && event.type !== "@xstate.snapshot") return;
    if (event.actorRef.sessionId !== event.rootId) return; // a child (the tool batch), not the run
    const actor = event.actorRef as { readonly id?: string; readonly logic?: { readonly id?: string } };
    if (actor.logic?.id !== this.machineId || actor.id === undefined) return;
    const value = (event.snapshot as { readonly value?: unknown }).value;
    if (value === undefined) return;
    const recording = this.runs.get(actor.id) ?? { entries: [], taken: [] };
    this.runs.set(actor.id, recording);
    if (event.type === "@xstate.microstep") {
      for (const transition of event._transitions as unknown as ReadonlyArray<TransitionLike>) {
        for (const target of transition.target ?? []) {
          recording.taken.push({ from: transition.source.path.join("."), to: target.path.join(".") });
        }
      }
    }
    const state = statePathOf(value);
    if (recording.entries.at(-1)?.state !== state) {
      const durable = this.watermark?.(actor.id);
      const recorded = (event.snapshot as { readonly context?: { readonly lastSequence?: unknown } }).context
        ?.lastSequence;
      const sequenceAtEntry =
        durable === undefined ? -1 : typeof recorded === "number" ? Math.max(durable, recorded) : durable;
      recording.entries.push({ state, sequenceAtEntry });
    }
  };

  /** The run's recorded path, forgotten here once taken. */
  take(runId: string): RecordedPath | undefined {
    const recording = this.runs.get(runId);
    if (!recording) return undefined;
    this.runs.delete(runId);
    return {
      entries: recording.entries,
      taken: recording.taken,
      exact: this.watermark !== undefined && recording.entries.every((entry) => entry.sequenceAtEntry >= 0),
    };
  }
}
