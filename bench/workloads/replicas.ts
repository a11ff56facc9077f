/**
 * `scale.replicas` (issue P): 1,000 W10 runs on one shared ledger, driven by 2 replica processes
 * (500 each, started together) against the same 1,000 driven by 1 process; runs/s of both and
 * their ratio. Every wave is checked in the database afterwards: all runs there and `completed`,
 * 0 lost, 0 duplicated events, sequences 1..21 with one terminal event each. PostgreSQL is the
 * measured backend; the same waves on one SQLite file (several processes through its owner table
 * and busy timeout) are reported beside it. The two shapes alternate within each repetition.
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import Sqlite from "better-sqlite3";
import { stat } from "../lib/measure.js";
import { type BenchPostgres, benchPostgres, checkW10Runs, type LedgerCheck } from "../lib/postgres.js";
import type { BenchOptions, BenchResult } from "../lib/types.js";
import { SCALE_LATENCY_MS } from "./scale.js";
import { W10_ROWS_PER_RUN, W10_STEPS } from "./w10.js";

const REPLICA = fileURLToPath(new URL("../replica.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

type Replica = ChildProcessByStdio<Writable, Readable, Readable>;

interface WaveResult {
  readonly wallMs: number;
  readonly runsPerSec: number;
  readonly check: LedgerCheck;
}

/** Starts a replica and resolves once its runtime is open (start-up is not measured). */
function startReplica(
  database: string,
  prefix: string,
  runs: number,
): Promise<{ child: Replica; result: Promise<void> }> {
  const child = spawn(process.execPath, ["--import", "tsx", REPLICA, database, prefix, String(runs)], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve, reject) => {
    child.once("close", (code) =>
      code === 0 && stdout.includes('"completed"')
        ? resolve()
        : reject(new Error(`replica ${prefix} exited ${code}: ${stderr.trim().split("\n").slice(-4).join(" | ")}`)),
    );
  });
  return new Promise((ready, fail) => {
    child.stdout.on("data", (chunk: Buffer) => {
      const before = stdout;
      stdout += chunk.toString();
      if (!before.includes("ready\n") && stdout.includes("ready\n")) ready({ child, result: exited });
    });
    exited.catch(fail);
  });
}

async function wave(
  database: string,
  check: (prefix: string, expected: number) => Promise<LedgerCheck>,
  prefix: string,
  total: number,
  replicas: number,
): Promise<WaveResult> {
  const share = total / replicas;
  const started = await Promise.all(
    Array.from({ length: replicas }, (_, i) => startReplica(database, `${prefix}p${i}-`, share)),
  );
  const begin = performance.now();
  for (const { child } of started) child.stdin.write("go\n");
  await Promise.all(started.map(({ result }) => result));
  const wallMs = performance.now() - begin;
  const verified = await check(prefix, total);
  if (verified.lost + verified.duplicatedEvents + verified.malformedRuns > 0 || verified.completed !== total) {
    throw new Error(`scale.replicas ${prefix}: the ledger does not hold the wave's runs: ${JSON.stringify(verified)}`);
  }
  return { wallMs, runsPerSec: total / (wallMs / 1000), check: verified };
}

/** The same W10-shape check as on PostgreSQL, on a SQLite ledger file. */
function sqliteCheck(filename: string) {
  return async (prefix: string, expected: number): Promise<LedgerCheck> => {
    const db = new Sqlite(filename, { readonly: true, fileMustExist: true });
    try {
      const upper = `${prefix}\uffff`;
      const runs = db
        .prepare(
          "SELECT COUNT(*) AS runs, SUM(terminal_state = 'completed') AS completed FROM agent_runs WHERE run_id >= ? AND run_id < ?",
        )
        .get(prefix, upper) as { runs: number; completed: number | null };
      const perRun = db
        .prepare(
          `SELECT COUNT(*) AS events, MAX(sequence) AS maxSequence, SUM(event_type = 'terminal') AS terminals
             FROM agent_run_events WHERE run_id >= ? AND run_id < ? GROUP BY run_id`,
        )
        .all(prefix, upper) as Array<{ events: number; maxSequence: number; terminals: number }>;
      return {
        runs: runs.runs,
        completed: runs.completed ?? 0,
        lost: Math.max(0, expected - runs.runs),
        duplicatedEvents: perRun.reduce((sum, run) => sum + Math.max(0, run.events - W10_ROWS_PER_RUN), 0),
        malformedRuns: perRun.filter((run) => run.events !== run.maxSequence || run.terminals !== 1).length,
      };
    } finally {
      db.close();
    }
  };
}

interface Backend {
  readonly database: string;
  readonly check: (prefix: string, expected: number) => Promise<LedgerCheck>;
}

/** Both shapes on one backend, alternating which goes first, `reps` times. */
async function measureBackend(backend: Backend, name: string, total: number, reps: number, warmUp: boolean) {
  const one: WaveResult[] = [];
  const two: WaveResult[] = [];
  // A warm-up wave: the schema migrated, the server's caches and the JIT of tsx's first load.
  if (warmUp) await wave(backend.database, backend.check, `${name}-warm-`, Math.min(total, 100), 2);
  for (let rep = 0; rep < reps; rep++) {
    const order: ReadonlyArray<1 | 2> = rep % 2 === 0 ? [1, 2] : [2, 1];
    for (const replicas of order) {
      const result = await wave(backend.database, backend.check, `${name}-r${rep}-x${replicas}-`, total, replicas);
      (replicas === 1 ? one : two).push(result);
    }
  }
  const oneRate = stat(one.map((w) => w.runsPerSec));
  const twoRate = stat(two.map((w) => w.runsPerSec));
  // The ratio within each repetition (same minute, same load), then its median.
  const ratio = stat(one.map((w, i) => two[i]!.runsPerSec / w.runsPerSec));
  return {
    oneWorker: { runsPerSec: oneRate, wallMs: stat(one.map((w) => w.wallMs)) },
    twoWorkers: { runsPerSec: twoRate, wallMs: stat(two.map((w) => w.wallMs)) },
    twoOverOne: ratio,
    checkedRuns: [...one, ...two].reduce((sum, w) => sum + w.check.runs, 0),
    lostRuns: [...one, ...two].reduce((sum, w) => sum + w.check.lost, 0),
    duplicatedEvents: [...one, ...two].reduce((sum, w) => sum + w.check.duplicatedEvents, 0),
    malformedRuns: [...one, ...two].reduce((sum, w) => sum + w.check.malformedRuns, 0),
  };
}

export async function benchReplicas(options: BenchOptions): Promise<BenchResult> {
  const id = "scale.replicas";
  const total = options.quick ? 20 : 1_000;
  // A smoke run measures each shape once: every wave starts 1–2 tsx processes.
  const reps = options.quick ? 1 : 3;
  const postgres: BenchPostgres | { readonly skipped: string } = await benchPostgres();
  if ("skipped" in postgres) return { id, skipped: postgres.skipped };
  try {
    const pg = await options.measured(() =>
      measureBackend(
        {
          database: postgres.database,
          check: (prefix, expected) => checkW10Runs(postgres, prefix, expected, W10_ROWS_PER_RUN),
        },
        "pg",
        total,
        reps,
        !options.quick,
      ),
    );
    const sqliteFile = join(options.dir, "replicas.db");
    const sqlite = await measureBackend(
      { database: sqliteFile, check: sqliteCheck(sqliteFile) },
      "sq",
      total,
      reps,
      !options.quick,
    );
    const usPerStep = stat(
      [pg.twoWorkers.wallMs.min, pg.twoWorkers.wallMs.median, pg.twoWorkers.wallMs.max].map(
        (ms) => (ms * 1000) / (total * W10_STEPS),
      ),
    );
    return {
      id,
      what: `${total} W10 runs (${SCALE_LATENCY_MS} ms model latency per step) started together on one PostgreSQL ledger by 2 replica processes (${total / 2} each) vs by 1; runs/s and their ratio per repetition; the same on one SQLite file beside it`,
      usPerStep: { min: usPerStep.min, median: usPerStep.median },
      runsPerSec: {
        min: pg.twoWorkers.runsPerSec.min,
        median: pg.twoWorkers.runsPerSec.median,
        max: pg.twoWorkers.runsPerSec.max,
      },
      runs: total,
      reps,
      postgres: pg,
      sqlite,
      completed: pg.checkedRuns + sqlite.checkedRuns,
    };
  } finally {
    await postgres.close();
  }
}
