/**
 * The path one run took through a machine, in the ids the charts use (svg.ts): a state id is the
 * dotted key path of a state node (`active.work.sampling`, `completed`), a transition is named by
 * the ids of the state that declares it and of its declared target (`active.work->finalizing` for
 * the `STOP` that `active.work` declares), exactly as `data-edge` names the drawn edge.
 *
 * This interface is shared with `agentloop serve`; keep it stable. For a run in this process,
 * `RunPathRecorder` (pathRecorder.ts, given to the runtime as `inspect`) records the exact
 * transitions and state entries; `runPathOf(states)` alone can only guess each transition from two
 * consecutive leaf states (see `edgeFor` in highlight.ts).
 */

export interface RunPathEvent {
  readonly sequence: number;
  readonly type: string;
  /** One line for people (see `describeEvent` in host/eval/htmlReport.ts). */
  readonly summary: string;
}

export interface RunPathTransition {
  readonly from: string;
  readonly to: string;
  /** How many times the run took it. */
  readonly count: number;
}

export interface RunPath {
  /** Visited run-machine state ids in order, e.g. "active.work.sampling", the terminal one last. */
  readonly states: ReadonlyArray<string>;
  /**
   * Transitions taken, each once with its count, in the order first taken. A transition named by
   * two consecutive *leaf* states (what `runPathOf` makes from a bare state list) is drawn on the
   * edge that leads from the leaf or its nearest ancestor to the target or its nearest ancestor.
   */
  readonly transitions: ReadonlyArray<RunPathTransition>;
  /** The final state the run ended in (drawn emphasised); absent while the run is still going. */
  readonly terminal?: string;
  /** Ledger events written while the run was in each state (all visits of it, by sequence). */
  readonly eventsByState?: Readonly<Record<string, ReadonlyArray<RunPathEvent>>>;
}

export interface RunPathOptions {
  /** Transitions as taken (`from`/`to` per step, repeated as often as taken); else consecutive states. */
  readonly taken?: ReadonlyArray<{ readonly from: string; readonly to: string }>;
  readonly terminal?: string;
  readonly eventsByState?: Readonly<Record<string, ReadonlyArray<RunPathEvent>>>;
}

/** Counts repeated steps: `[a→b, b→c, c→b, b→c]` → `a→b ×1, b→c ×2, c→b ×1`, in first-taken order. */
export function countTransitions(
  steps: ReadonlyArray<{ readonly from: string; readonly to: string }>,
): ReadonlyArray<RunPathTransition> {
  const counts = new Map<string, { from: string; to: string; count: number }>();
  for (const { from, to } of steps) {
    const key = `${from}->${to}`;
    const entry = counts.get(key) ?? { from, to, count: 0 };
    entry.count += 1;
    counts.set(key, entry);
  }
  return [...counts.values()];
}

/** A RunPath from the ordered states a run visited (and, when known, the transitions it took). */
export function runPathOf(states: ReadonlyArray<string>, options: RunPathOptions = {}): RunPath {
  const steps =
    options.taken ??
    states.slice(1).flatMap((to, index) => (states[index] === to ? [] : [{ from: states[index]!, to }]));
  return {
    states: [...states],
    transitions: countTransitions(steps),
    ...(options.terminal !== undefined ? { terminal: options.terminal } : {}),
    ...(options.eventsByState ? { eventsByState: options.eventsByState } : {}),
  };
}

/** A state the run entered, and the ledger's last durable sequence number at that moment. */
export interface StateEntry {
  readonly state: string;
  readonly sequenceAtEntry: number;
}

/**
 * Which state each event was written in, from the ledger's high-water mark at every state entry:
 * an event with `sequenceAtEntry(i) < sequence <= sequenceAtEntry(i + 1)` was written during
 * visit `i`; events after the last entry belong to the last state.
 */
export function eventsByEntry(
  entries: ReadonlyArray<StateEntry>,
  events: ReadonlyArray<RunPathEvent>,
): Record<string, RunPathEvent[]> {
  const byState: Record<string, RunPathEvent[]> = {};
  const ordered = [...events].sort((a, b) => a.sequence - b.sequence);
  let visit = 0;
  for (const event of ordered) {
    while (visit + 1 < entries.length && entries[visit + 1]!.sequenceAtEntry < event.sequence) visit += 1;
    const state = entries[visit]?.state;
    if (state === undefined) continue;
    byState[state] = [...(byState[state] ?? []), event];
  }
  return byState;
}
