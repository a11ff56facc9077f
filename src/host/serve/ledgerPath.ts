import type { LedgerEvent, RunRecord } from "../../domain/index.js";
import { type RunPath, type RunPathEvent, runPathOf } from "../charts/runPath.js";
import { describeEvent } from "../eval/describeEvent.js";

/**
 * The run machine's path as far as the ledger shows it. The ledger holds rows, not states, so the
 * path is read off what each write means in src/machines/run (commands.ts, decisions.ts):
 *
 * - the run row and the user input are written while `opening`;
 * - a step's tool_call rows (with its anomalies and commentary) are written in `recordingCalls`,
 *   after `sampling`, and the tools then run in `executingTools`;
 * - tool_result rows are written in `recordingResults`;
 * - a turn ending in a runtime correction is written in `recordingTurn` after `verifying`; one
 *   ending in `tool_finish_without_parsed_calls` (a protocol repair) after `sampling` alone;
 * - the terminal row and its closing rows are written in `finalizing`, reached from `verifying`
 *   when the run's verdict is recorded, else from sampling (an answer cut short, a provider error)
 *   or straight from where the run stopped (cancelled, out of steps, a doom loop). A run
 *   cancelled with nothing but its opening rows is drawn through `sampling`: a cancel within the
 *   opening write itself cannot be told apart from one while the model was asked.
 *
 * Sampling itself writes nothing, so a run still going after a write that is followed by
 * sampling (`opening`, `recordingResults`, `recordingTurn`) is shown as `sampling`: that is
 * where the machine goes next unless the run ends. A run closed by recovery (`interrupted`) is
 * drawn through `finalizing` as well, though no machine took that step.
 */

export const RUN_STATES = {
  opening: "active.work.opening",
  sampling: "active.work.sampling",
  recordingCalls: "active.work.recordingCalls",
  executingTools: "active.work.executingTools",
  recordingResults: "active.work.recordingResults",
  verifying: "active.work.verifying",
  recordingTurn: "active.work.recordingTurn",
  finalizing: "finalizing",
} as const;

const TERMINAL_STATES = new Set(["completed", "unverified", "incomplete", "failed", "cancelled"]);
/** Decisions taken where the run stood, without sampling again. */
const STOPPED_WHERE_IT_WAS = new Set(["cancelled_by_user", "max_steps_reached", "doom_loop", "interrupted"]);
const REPAIR_CODE = "tool_finish_without_parsed_calls";

type Payload = Record<string, unknown>;
const payloadOf = (event: LedgerEvent): Payload =>
  event.payload !== null && typeof event.payload === "object" && !Array.isArray(event.payload)
    ? (event.payload as Payload)
    : {};

const pathEvent = (event: LedgerEvent): RunPathEvent => ({
  sequence: event.sequence,
  type: event.type,
  summary: describeEvent(event),
});

/** The rows of one write, in the state that wrote them and the states entered before it. */
interface Batch {
  readonly via: ReadonlyArray<string>;
  readonly state: string;
  readonly rows: ReadonlyArray<LedgerEvent>;
  /** State entered once the write is durable (the tools run after their calls are recorded). */
  readonly next?: string;
}

/**
 * Splits the rows into writes. Rows that are not terminal accumulate until a row that closes a
 * write: tool calls (then the run executes them), tool results, a correction or a repair.
 */
function batchesOf(events: ReadonlyArray<LedgerEvent>): Batch[] {
  const batches: Batch[] = [];
  let pending: LedgerEvent[] = [];
  const ordered = [...events].sort((a, b) => a.sequence - b.sequence);
  for (let index = 0; index < ordered.length; index += 1) {
    const event = ordered[index]!;
    const next = ordered[index + 1];
    const payload = payloadOf(event);
    if (batches.length === 0 && pending.length === 0 && event.type === "user_input") {
      batches.push({ via: [], state: RUN_STATES.opening, rows: [event] });
      continue;
    }
    pending.push(event);
    const flush = (batch: Omit<Batch, "rows">) => {
      batches.push({ ...batch, rows: pending });
      pending = [];
    };
    if (event.type === "terminal") {
      flush({ via: [], state: RUN_STATES.finalizing });
    } else if (event.type === "tool_call" && next?.type !== "tool_call") {
      flush({ via: [RUN_STATES.sampling], state: RUN_STATES.recordingCalls, next: RUN_STATES.executingTools });
    } else if (event.type === "tool_result" && next?.type !== "tool_result") {
      flush({ via: [], state: RUN_STATES.recordingResults });
    } else if (event.type === "user_input" && payload.origin === "runtime_correction") {
      flush({ via: [RUN_STATES.sampling, RUN_STATES.verifying], state: RUN_STATES.recordingTurn });
    } else if (
      event.type === "provider_anomaly" &&
      payload.code === REPAIR_CODE &&
      next !== undefined &&
      next.type !== "terminal"
    ) {
      flush({ via: [RUN_STATES.sampling], state: RUN_STATES.recordingTurn });
    }
  }
  // Rows of a write still in progress are never seen (each write is one transaction), but a run
  // row alone (no user input) or rows of an unknown shape are kept where the run last was.
  if (pending.length > 0) batches.push({ via: [], state: batches.at(-1)?.state ?? RUN_STATES.opening, rows: pending });
  return batches;
}

/** The states between where the run stood and `finalizing`, from what the terminal row says. */
function approachToFinal(current: string, closingRows: ReadonlyArray<LedgerEvent>, terminal: Payload): string[] {
  const reason = typeof terminal.reason === "string" ? terminal.reason : "";
  if (reason === "ledger_write_failed" || current === RUN_STATES.executingTools) return [];
  const sampled = [RUN_STATES.sampling, ...(terminal.verification !== undefined ? [RUN_STATES.verifying] : [])];
  // An answer, an empty turn or a broken tool turn closes the run: the model was sampled.
  if (closingRows.some((row) => row.type === "assistant_output" || row.type === "provider_anomaly")) return sampled;
  // Opening is one write: a cancel almost always lands while the model is sampled next.
  if (current === RUN_STATES.opening) return reason === "interrupted" ? [] : sampled;
  return STOPPED_WHERE_IT_WAS.has(reason) ? [] : sampled;
}

/**
 * The state that declares the transition into `finalizing` (the chart draws each declaration as
 * its own edge): a decision (STOP) is declared on `active.work`, a ledger failure on `active`;
 * a cancel while sampling or verifying and a crash of the verifier or the tool batch on the state
 * itself.
 */
function finalizingDeclaredOn(from: string, terminal: Payload): string {
  const reason = terminal.reason;
  if (reason === "ledger_write_failed") return "active";
  if (reason === "cancelled_by_user" && (from === RUN_STATES.sampling || from === RUN_STATES.verifying)) return from;
  if (reason === "internal_error" && (from === RUN_STATES.executingTools || from === RUN_STATES.verifying)) return from;
  return "active.work";
}

/** The RunPath (src/host/charts/runPath.ts) of a run, from its ledger rows alone. */
export function ledgerPath(run: Pick<RunRecord, "terminalState">, events: ReadonlyArray<LedgerEvent>): RunPath {
  const states: string[] = [];
  const taken: Array<{ from: string; to: string }> = [];
  const eventsByState: Record<string, RunPathEvent[]> = {};
  const enter = (state: string, declaredOn?: string) => {
    const from = states.at(-1);
    if (from === state) return;
    // Every way back to sampling is a CONTINUE decision, which `active.work` declares.
    const source = declaredOn ?? (state === RUN_STATES.sampling ? "active.work" : from);
    if (from !== undefined && source !== undefined) taken.push({ from: source, to: state });
    states.push(state);
  };
  const record = (state: string, rows: ReadonlyArray<LedgerEvent>) => {
    if (rows.length === 0) return;
    eventsByState[state] = [...(eventsByState[state] ?? []), ...rows.map(pathEvent)];
  };
  let terminal: string | undefined;
  enter(RUN_STATES.opening);
  for (const batch of batchesOf(events)) {
    if (batch.state === RUN_STATES.finalizing) {
      const row = batch.rows.at(-1)!;
      const payload = payloadOf(row);
      for (const state of approachToFinal(states.at(-1)!, batch.rows.slice(0, -1), payload)) enter(state);
      enter(RUN_STATES.finalizing, finalizingDeclaredOn(states.at(-1)!, payload));
      record(RUN_STATES.finalizing, batch.rows);
      const state = String(payload.terminalState ?? "");
      if (TERMINAL_STATES.has(state)) {
        enter(state);
        terminal = state;
      }
      continue;
    }
    // Sampling follows every write but the tool calls' (whose tools run next).
    for (const state of batch.via) enter(state);
    enter(batch.state);
    record(batch.state, batch.rows);
    if (batch.next) enter(batch.next);
  }
  if (terminal === undefined && run.terminalState === "running") {
    const last = states.at(-1);
    if (last === RUN_STATES.opening || last === RUN_STATES.recordingResults || last === RUN_STATES.recordingTurn) {
      enter(RUN_STATES.sampling);
    }
  }
  return runPathOf(states, { taken, ...(terminal ? { terminal } : {}), eventsByState });
}
