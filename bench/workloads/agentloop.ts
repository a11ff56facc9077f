/** agentloop.w10.*: the full runtime (run actor, tool batch actor, verifier, ledger) running W10. */
import { join } from "node:path";
import { AgentRuntime } from "../../src/runtime/AgentRuntime.js";
import { loopFields, loopPlan, measureSequential } from "../lib/measure.js";
import { benchPostgres, checkW10Runs } from "../lib/postgres.js";
import type { BenchOptions, BenchResult } from "../lib/types.js";
import { W10_CONTRACT_INPUT, W10_INPUT, W10_ROWS_PER_RUN, W10_STEPS, w10LookupTool, w10Provider } from "./w10.js";

export interface AgentloopW10 {
  readonly runtime: AgentRuntime;
  /** Starts one W10 run and resolves when it has ended; rejects unless it ended `completed`. */
  readonly runOnce: (runId: string) => Promise<void>;
  readonly dispose: () => Promise<void>;
}

export async function makeAgentloopW10(options: { database: string; latencyMs?: number }): Promise<AgentloopW10> {
  const runtime = await AgentRuntime.make({
    database: options.database,
    provider: w10Provider(options.latencyMs ?? 0),
    tools: [w10LookupTool],
  });
  const runOnce = async (runId: string) => {
    const handle = runtime.startRun({ sessionId: "bench", input: W10_INPUT, contract: W10_CONTRACT_INPUT, runId });
    const result = await handle.result;
    if (result.terminalState !== "completed" || result.steps !== 10) {
      throw new Error(
        `W10 run ${runId} ended ${result.terminalState}/${result.terminalReason} after ${result.steps} steps`,
      );
    }
  };
  return { runtime, runOnce, dispose: () => runtime.dispose() };
}

const LEDGERS = {
  sqlite: "on a file (WAL, synchronous NORMAL)",
  memory: "in :memory:",
  postgres: "on PostgreSQL (@effect/sql-pg, a local server)",
} as const;

/**
 * `agentloop.w10.sqlite` (a ledger file), `agentloop.w10.memory` (`:memory:`) or
 * `agentloop.w10.postgres` (a fresh database on a local PostgreSQL server, skipped without one).
 */
export async function benchAgentloop(ledger: keyof typeof LEDGERS, options: BenchOptions): Promise<BenchResult> {
  const id = `agentloop.w10.${ledger}`;
  const postgres = ledger === "postgres" ? await benchPostgres() : undefined;
  if (postgres && "skipped" in postgres) return { id, skipped: postgres.skipped };
  const database = postgres ? postgres.database : ledger === "sqlite" ? join(options.dir, "agentloop.db") : ":memory:";
  try {
    const bench = await makeAgentloopW10({ database });
    try {
      const measured = await options.measured(() =>
        measureSequential(loopPlan(options.quick, 30, W10_STEPS), (label) => bench.runOnce(`run-${label}`)),
      );
      if (postgres) {
        const check = await checkW10Runs(postgres, "run-r", measured.runs * measured.reps, W10_ROWS_PER_RUN);
        if (check.lost + check.duplicatedEvents + check.malformedRuns > 0 || check.completed !== check.runs) {
          throw new Error(`${id}: the ledger does not hold the measured runs: ${JSON.stringify(check)}`);
        }
      }
      return {
        id,
        what: `AgentRuntime.startRun, W10 runs one after another, ledger ${LEDGERS[ledger]}`,
        ...loopFields(measured),
      };
    } finally {
      await bench.dispose();
    }
  } finally {
    await postgres?.close();
  }
}
