import * as Effect from "effect/Effect";
import type { ApprovalRecord, LedgerEvent } from "../domain/index.js";
import { describeApproval, describeEvent } from "../host/eval/describeEvent.js";
import { AgentRunStore } from "../persistence/AgentRunStore.js";
import { listApprovals } from "../persistence/approvals.js";
import type { LedgerServices } from "../persistence/ledger.js";
import { CliFailure, type CliIO, terminalText } from "./output.js";
import { readLedger } from "./readLedger.js";

/**
 * The implementations of `agentloop inspect` and `agentloop runs`, loaded only when one of them
 * runs (src/cli/inspectCommands.ts defines the commands).
 */

/** Runs `use` on the ledger's store, opened read-only: inspecting never creates or migrates the file. */
const withStore = <A>(
  db: string,
  use: (store: AgentRunStore["Type"]) => Effect.Effect<A, { message: string }, LedgerServices>,
) => readLedger(db, Effect.flatMap(AgentRunStore, use));

function durationMs(startedAt: string, endedAt: string | null): number | null {
  return endedAt ? Date.parse(endedAt) - Date.parse(startedAt) : null;
}

/** The call a `tool_call` event opens, if it is one. */
const callIdOf = (event: LedgerEvent): string | undefined => {
  const callId = event.type === "tool_call" ? (event.payload as { callId?: unknown } | null)?.callId : undefined;
  return typeof callId === "string" ? callId : undefined;
};

/**
 * `agentloop inspect RUN_ID`: a run's timeline from the ledger, each call's approval (who decided
 * what, when, with what scope) beside the call. Everything the ledger holds is escaped for the
 * terminal: ids, names, who decided, tool output.
 */
export async function inspectCommand(
  io: CliIO,
  runId: string,
  options: { db: string; json?: boolean },
): Promise<number> {
  const found = await withStore(options.db, (store) =>
    Effect.gen(function* () {
      const run = yield* store.getRun(runId);
      if (!run) return undefined;
      return {
        run,
        events: yield* store.listRunEvents(runId),
        receipts: yield* store.listReceipts(runId),
        approvals: yield* listApprovals(runId),
      };
    }),
  );
  if (!found) throw new CliFailure(`no run ${terminalText(runId)} in ${terminalText(options.db)}`);
  if (options.json) {
    io.out(terminalText(JSON.stringify(found)));
    return 0;
  }
  const { run, events, receipts, approvals } = found;
  const line = (text: string) => io.out(terminalText(text));
  line(`run ${run.runId}  session ${run.sessionId}  trace ${run.traceId ?? "-"}`);
  line(
    `state ${run.terminalState}${run.failureCode ? `/${run.failureCode}` : ""}  contract ${run.contract.evidenceMode} (${run.contract.source})`,
  );
  line(`provider ${run.providerId ?? "-"} ${run.model ?? ""}  started ${run.startedAt}  ended ${run.endedAt ?? "-"}`);
  io.out("");
  const approvalOf = new Map<string, ApprovalRecord>(approvals.map((approval) => [approval.callId, approval]));
  const shown = new Set<string>();
  for (const event of events) {
    line(`${String(event.sequence).padStart(4)}  ${event.createdAt}  ${describeEvent(event)}`);
    const approval = approvalOf.get(callIdOf(event) ?? "");
    if (approval) {
      line(`${" ".repeat(6)}${describeApproval(approval)}`);
      shown.add(approval.callId);
    }
  }
  // A request whose call row is not in the timeline (a ledger cut short) is still shown.
  for (const approval of approvals.filter((record) => !shown.has(record.callId))) {
    line(`${" ".repeat(6)}${approval.callId} ${approval.toolName}: ${describeApproval(approval)}`);
  }
  io.out("");
  if (receipts.length === 0) io.out("no receipts");
  for (const receipt of receipts) {
    line(
      `receipt ${receipt.callId} ${receipt.toolName}: ${receipt.status}${receipt.reason ? ` (${receipt.reason})` : ""}, ${receipt.verificationStatus}, evidence ${JSON.stringify(receipt.evidence)}`,
    );
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
  if (options.json) io.out(terminalText(JSON.stringify(rows)));
  else if (rows.length === 0) io.out("no runs");
  else {
    io.out(`${"run".padEnd(44)}${"state".padEnd(12)}${"reason".padEnd(32)}${"steps".padEnd(7)}duration`);
    for (const row of rows) {
      io.out(
        `${terminalText(row.runId).padEnd(44)}${row.state.padEnd(12)}${terminalText(row.reason ?? "-").padEnd(32)}${String(row.steps ?? "-").padEnd(7)}${row.durationMs === null ? "-" : `${row.durationMs} ms`}`,
      );
    }
  }
  return 0;
}
