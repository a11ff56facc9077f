import { Effect } from "effect";
import { describeEvent } from "../host/eval/htmlReport.js";
import { AgentRunStore } from "../persistence/AgentRunStore.js";
import { CliFailure, type CliIO } from "./output.js";
import { readLedger } from "./readLedger.js";

/**
 * The implementations of `agentloop inspect` and `agentloop runs`, loaded only when one of them
 * runs (src/cli/inspectCommands.ts defines the commands).
 */

/** Runs `use` on the ledger's store, opened read-only: inspecting never creates or migrates the file. */
const withStore = <A>(db: string, use: (store: AgentRunStore["Type"]) => Effect.Effect<A, { message: string }>) =>
  readLedger(db, Effect.flatMap(AgentRunStore, use));

function durationMs(startedAt: string, endedAt: string | null): number | null {
  return endedAt ? Date.parse(endedAt) - Date.parse(startedAt) : null;
}

/** `agentloop inspect RUN_ID`: a run's timeline from the ledger. */
export async function inspectCommand(
  io: CliIO,
  runId: string,
  options: { db: string; json?: boolean },
): Promise<number> {
  const found = await withStore(options.db, (store) =>
    Effect.gen(function* () {
      const run = yield* store.getRun(runId);
      if (!run) return undefined;
      return { run, events: yield* store.listRunEvents(runId), receipts: yield* store.listReceipts(runId) };
    }),
  );
  if (!found) throw new CliFailure(`no run ${runId} in ${options.db}`);
  if (options.json) {
    io.out(JSON.stringify(found));
  } else {
    const { run, events, receipts } = found;
    io.out(`run ${run.runId}  session ${run.sessionId}  trace ${run.traceId ?? "-"}`);
    io.out(
      `state ${run.terminalState}${run.failureCode ? `/${run.failureCode}` : ""}  contract ${run.contract.evidenceMode} (${run.contract.source})`,
    );
    io.out(
      `provider ${run.providerId ?? "-"} ${run.model ?? ""}  started ${run.startedAt}  ended ${run.endedAt ?? "-"}`,
    );
    io.out("");
    for (const event of events)
      io.out(`${String(event.sequence).padStart(4)}  ${event.createdAt}  ${describeEvent(event)}`);
    io.out("");
    if (receipts.length === 0) io.out("no receipts");
    for (const receipt of receipts) {
      io.out(
        `receipt ${receipt.callId} ${receipt.toolName}: ${receipt.status}${receipt.reason ? ` (${receipt.reason})` : ""}, ${receipt.verificationStatus}, evidence ${JSON.stringify(receipt.evidence)}`,
      );
    }
  }
  return 0;
}

/** `agentloop runs`: runs with state, reason, steps and duration. */
export async function runsCommand(
  io: CliIO,
  options: { db: string; session?: string; state?: string; limit: string; json?: boolean },
): Promise<number> {
  const limit = Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new CliFailure("--limit must be a positive whole number", 2);
  const rows = await withStore(options.db, (store) =>
    Effect.gen(function* () {
      const runs = yield* store.listRuns({
        ...(options.session ? { sessionId: options.session } : {}),
        ...(options.state ? { terminalState: options.state } : {}),
        newestFirst: true,
        limit,
      });
      const ledgers = yield* store.loadRunLedgers(runs);
      return ledgers.map(({ run, events }) => {
        const terminal = events.find((event) => event.type === "terminal")?.payload as { steps?: number } | undefined;
        return {
          runId: run.runId,
          sessionId: run.sessionId,
          state: run.terminalState,
          reason: run.failureCode,
          steps: terminal?.steps ?? null,
          durationMs: durationMs(run.startedAt, run.endedAt),
          startedAt: run.startedAt,
        };
      });
    }),
  );
  if (options.json) io.out(JSON.stringify(rows));
  else if (rows.length === 0) io.out("no runs");
  else {
    io.out(`${"run".padEnd(44)}${"state".padEnd(12)}${"reason".padEnd(32)}${"steps".padEnd(7)}duration`);
    for (const row of rows) {
      io.out(
        `${row.runId.padEnd(44)}${row.state.padEnd(12)}${(row.reason ?? "-").padEnd(32)}${String(row.steps ?? "-").padEnd(7)}${row.durationMs === null ? "-" : `${row.durationMs} ms`}`,
      );
    }
  }
  return 0;
}
