import * as Effect from "effect/Effect";
import * as Schedule from "effect/Schedule";
import { AgentRunStore, type AgentRunStoreShape, type LedgerError } from "../../persistence/AgentRunStore.js";
import { thisHost } from "../../persistence/runOwners.js";
import type { ToolProcessRecord } from "../../persistence/toolProcesses.js";
import type { ToolProcessLog } from "../tools/Tool.js";
import { endRecordedCommand, removeCgroupLeaf } from "./commandScope.js";
import { bootId, pidExists, sameProcess } from "./procfs.js";

/**
 * Tool processes and the ledger: a call's log writes each group it starts (and its end) through
 * the store; recovery ends the groups a dead process left running and says what it found.
 */

/** The log a run's tool calls get: rows through the store; a failed write is a warning, not a failed call. */
export const toolProcessLog = (
  store: AgentRunStoreShape,
  runId: string,
  callId: string,
  now: () => string,
): ToolProcessLog => ({
  started: (process) =>
    store
      .recordToolProcess({ ...process, runId, callId, host: thisHost(), recordedAt: now() })
      .pipe(
        Effect.catchAll((error) =>
          Effect.logWarning(`process group ${process.pgid} of call ${callId} was not recorded: ${error.message}`),
        ),
      ),
  ended: (process) =>
    store
      .endToolProcess(process.marker, { by: "call" })
      .pipe(
        Effect.catchAll((error) =>
          Effect.logWarning(
            `the end of process group ${process.pgid} of call ${callId} was not recorded: ${error.message}`,
          ),
        ),
      ),
});

/**
 * What recovery found of one recorded group: `ended` (it signalled processes still running),
 * `already_gone` (nothing of it ran any more), `not_same_process` (its pid now belongs to another
 * process, which is left alone) or `other_boot` (the host rebooted since).
 */
export type StrayOutcome = "ended" | "already_gone" | "not_same_process" | "other_boot";

export interface EndedStrayProcess {
  readonly runId: string;
  readonly callId: string;
  readonly pgid: number;
  readonly outcome: StrayOutcome;
  /** How many processes were sent SIGKILL. */
  readonly signalled: number;
}

/** Ends what is left of one recorded group on this host. */
export function endStrayProcess(record: ToolProcessRecord): EndedStrayProcess {
  const at = { runId: record.runId, callId: record.callId, pgid: record.pgid };
  const boot = bootId();
  if (record.bootId && boot && record.bootId !== boot) return { ...at, outcome: "other_boot", signalled: 0 };
  // Without a start time (no /proc where it was recorded) a live pid cannot be told from a reused one.
  const groupIsSame = record.startTime !== null && sameProcess(record.pgid, record.startTime);
  const signalled = endRecordedCommand({ ...record, groupIsSame }).length;
  if (signalled > 0) return { ...at, outcome: "ended", signalled };
  return { ...at, outcome: !groupIsSame && pidExists(record.pgid) ? "not_same_process" : "already_gone", signalled };
}

/** A line for an operator about one group recovery looked at. */
export function describeStray(stray: EndedStrayProcess): string {
  const of = `process group ${stray.pgid} (run ${stray.runId}, call ${stray.callId})`;
  switch (stray.outcome) {
    case "ended":
      return `ended ${of}: ${stray.signalled} process(es) still running after their process was gone`;
    case "already_gone":
      return `${of} had already ended`;
    case "not_same_process":
      return `left pid ${stray.pgid} alone: it now belongs to another process than ${of}`;
    case "other_boot":
      return `${of} was recorded before the host rebooted`;
  }
}

/** A killed member leaves its cgroup once it has exited: up to ~2 s for the leaf to empty. */
const LEAF_RETRY = Schedule.spaced("25 millis").pipe(Schedule.intersect(Schedule.recurs(80)));

/**
 * Ends the process groups that processes now gone left running on this host (their run ended or
 * its owner is known gone), marks their rows, and logs a warning for each group it had to end.
 */
export const endStrayToolProcesses = (): Effect.Effect<ReadonlyArray<EndedStrayProcess>, LedgerError, AgentRunStore> =>
  Effect.gen(function* () {
    const store = yield* AgentRunStore;
    const strays = yield* store.findStrayToolProcesses(thisHost());
    const ended: EndedStrayProcess[] = [];
    for (const record of strays) {
      const stray = endStrayProcess(record);
      const leaf = record.cgroup;
      if (leaf)
        yield* Effect.retry(
          Effect.filterOrFail(
            Effect.sync(() => removeCgroupLeaf(leaf)),
            Boolean,
          ),
          LEAF_RETRY,
        ).pipe(Effect.ignore);
      yield* store.endToolProcess(record.marker, { by: "recovery", how: stray.outcome });
      if (stray.outcome === "ended") yield* Effect.logWarning(describeStray(stray));
      ended.push(stray);
    }
    return ended;
  });
