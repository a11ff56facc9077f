/**
 * A PostgreSQL server for the `*.postgres` / `scale.replicas` benchmarks: the one named by
 * AGENTLOOP_BENCH_PG_URL (or AGENTLOOP_TEST_PG_URL), else a throwaway cluster of the project's own
 * `scripts/pg-cluster.sh` (Debian's postgresql; fsync off, like the tests' cluster) started for
 * this benchmark process and stopped when it ends. Each benchmark gets a database of its own.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import Pg from "pg";

const CLUSTER_SCRIPT = fileURLToPath(new URL("../../scripts/pg-cluster.sh", import.meta.url));

export interface BenchPostgres {
  /** The URL of a fresh, empty database on the server. */
  readonly database: string;
  /** Runs SQL on that database (verification after the measured part). */
  readonly query: <R extends Pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<R[]>;
  /** Drops the database; stops the cluster if this process started it. */
  readonly close: () => Promise<void>;
}

/** A server to bench on, or the reason there is none (the benchmark is then reported skipped). */
export async function benchPostgres(): Promise<BenchPostgres | { readonly skipped: string }> {
  let serverUrl = process.env.AGENTLOOP_BENCH_PG_URL ?? process.env.AGENTLOOP_TEST_PG_URL;
  let clusterDir: string | undefined;
  if (!serverUrl) {
    try {
      const exports = execFileSync("bash", [CLUSTER_SCRIPT, "start"], { encoding: "utf8", stdio: "pipe" });
      serverUrl = /AGENTLOOP_TEST_PG_URL=(\S+)/.exec(exports)?.[1];
      clusterDir = /AGENTLOOP_TEST_PG_DIR=(\S+)/.exec(exports)?.[1];
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr?.trim().split("\n").at(-1);
      return {
        skipped: `no PostgreSQL: set AGENTLOOP_BENCH_PG_URL or install postgresql (${stderr ?? "pg-cluster failed"})`,
      };
    }
    if (!serverUrl) return { skipped: "scripts/pg-cluster.sh printed no URL" };
  }
  const stopCluster = () => {
    if (clusterDir) execFileSync("bash", [CLUSTER_SCRIPT, "stop", clusterDir], { stdio: "ignore" });
  };
  const admin = async (sql: string) => {
    const client = new Pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  const name = `agentloop_bench_${randomBytes(5).toString("hex")}`;
  try {
    await admin(`CREATE DATABASE ${name} TEMPLATE template0`);
  } catch (error) {
    stopCluster();
    return { skipped: `cannot create a database on the server: ${error instanceof Error ? error.message : error}` };
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = url.toString();
  const verifier = new Pg.Client({ connectionString: database });
  await verifier.connect();
  return {
    database,
    query: async (text, values) => (await verifier.query(text, values)).rows,
    close: async () => {
      await verifier.end();
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      stopCluster();
    },
  };
}

export interface LedgerCheck {
  readonly runs: number;
  readonly completed: number;
  /** Runs that should be there and are not. */
  readonly lost: number;
  /** Event rows beyond the W10 shape (a run written twice, a repeated step). */
  readonly duplicatedEvents: number;
  /** Runs whose sequences are not 1..n, or that have not exactly one terminal event. */
  readonly malformedRuns: number;
}

/** Checks every run whose id starts with `prefix` against the W10 shape (`rowsPerRun` events, one terminal). */
export async function checkW10Runs(
  pg: BenchPostgres,
  prefix: string,
  expectedRuns: number,
  rowsPerRun: number,
): Promise<LedgerCheck> {
  const [runs] = await pg.query<{ runs: number; completed: number }>(
    `SELECT COUNT(*)::int AS runs, COUNT(*) FILTER (WHERE terminal_state = 'completed')::int AS completed
       FROM agent_runs WHERE starts_with(run_id, $1)`,
    [prefix],
  );
  const perRun = await pg.query<{ run_id: string; events: number; max_sequence: number; terminals: number }>(
    `SELECT run_id, COUNT(*)::int AS events, MAX(sequence)::int AS max_sequence,
            COUNT(*) FILTER (WHERE event_type = 'terminal')::int AS terminals
       FROM agent_run_events WHERE starts_with(run_id, $1) GROUP BY run_id`,
    [prefix],
  );
  const found = runs?.runs ?? 0;
  return {
    runs: found,
    completed: runs?.completed ?? 0,
    lost: Math.max(0, expectedRuns - found),
    duplicatedEvents: perRun.reduce((sum, run) => sum + Math.max(0, run.events - rowsPerRun), 0),
    malformedRuns: perRun.filter((run) => run.events !== run.max_sequence || run.terminals !== 1).length,
  };
}
