/**
 * Test support: the ledger backends a test runs against. SQLite always; PostgreSQL
 * when AGENTLOOP_TEST_PG_URL names a server (`.ci/run` starts a throwaway cluster and sets it;
 * locally `eval "$(scripts/pg-cluster.sh start)"`). Without it the PostgreSQL cases are skipped
 * with a notice — except under CI, where its absence is a failure.
 */
import { randomBytes } from "node:crypto";
import { SqlClient } from "@effect/sql";
import { Effect, Layer } from "effect";
import Pg from "pg";
import { afterAll, afterEach } from "vitest";
import * as Ledger from "../../src/persistence/ledger.js";
import type { AgentRuntimeConfig } from "../../src/runtime/AgentRuntime.js";
import type { RuntimeHarness } from "./runtimeHarness.js";

export const PG_URL = process.env.AGENTLOOP_TEST_PG_URL;

if (!PG_URL && process.env.CI) {
  throw new Error("AGENTLOOP_TEST_PG_URL is not set: CI must run the PostgreSQL tests (.ci/run starts a cluster)");
}

let warned = false;
/** Says once per test file that the PostgreSQL cases were skipped. */
export function noticePostgresSkipped(): void {
  if (PG_URL || warned) return;
  warned = true;
  console.warn(
    '[agentloop] PostgreSQL tests SKIPPED: set AGENTLOOP_TEST_PG_URL (eval "$(scripts/pg-cluster.sh start)") to run them',
  );
}

export type BackendName = "sqlite" | "postgres";

const created: string[] = [];

async function admin<A>(use: (client: Pg.Client) => Promise<A>): Promise<A> {
  const client = new Pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** A new, empty PostgreSQL database on the test server; its URL. Dropped when the file's tests end. */
export async function freshPostgresDatabase(): Promise<string> {
  if (!PG_URL) throw new Error("no PostgreSQL server for the tests (AGENTLOOP_TEST_PG_URL)");
  const name = `agentloop_t_${randomBytes(6).toString("hex")}`;
  await admin((client) => client.query(`CREATE DATABASE ${name} TEMPLATE template0`));
  created.push(name);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

afterAll(async () => {
  if (!PG_URL || created.length === 0) return;
  const names = created.splice(0);
  await admin(async (client) => {
    for (const name of names) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
  // A file's tests may leave dozens of databases; dropping them takes longer on a loaded machine.
}, 180_000);

/** The backends every parameterised ledger test runs on (PostgreSQL only when a server is there). */
export const BACKENDS: ReadonlyArray<BackendName> = PG_URL ? ["sqlite", "postgres"] : ["sqlite"];

/**
 * Provides the ledger (AgentRunStore + SqlClient, no owner unless `options.owner`) of a fresh
 * database on `backend`: the SQLite file `file()`, or a new PostgreSQL database.
 */
export const ledgerOn =
  (backend: BackendName, file: () => string, options: Omit<Ledger.LedgerOptions, "filename"> = {}) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.provide(
      effect,
      backend === "sqlite"
        ? Ledger.layer({ owner: false, ...options, filename: file() })
        : Layer.unwrapEffect(
            Effect.promise(freshPostgresDatabase).pipe(
              Effect.map((url) => Ledger.layer({ owner: false, ...options, filename: url })),
            ),
          ),
    );

const DUMP_ORDER: ReadonlyArray<readonly [table: string, order: string]> = [
  ["agent_runs", "run_id"],
  ["agent_run_events", "run_id, sequence"],
  ["agent_execution_receipts", "run_id, call_id"],
  ["run_leases", "run_id"],
];

/** Every ledger row through the SqlClient, in a stable order, without engine-internal columns. */
export const dumpLedger = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient;
  const dump: Record<string, unknown[]> = {};
  for (const [table, order] of DUMP_ORDER) {
    const rows = yield* sql.unsafe<Record<string, unknown>>(`SELECT * FROM ${table} ORDER BY ${order}`);
    dump[table] = rows.map(({ rowid: _rowid, insert_order: _insertOrder, event_id: _eventId, ...row }) => row);
  }
  return dump;
}).pipe(Effect.orDie);

/** A fresh database of `backend`: the SQLite file `file`, or the URL of a new PostgreSQL database. */
export const freshDatabase = async (backend: BackendName, file: string): Promise<string> =>
  backend === "sqlite" ? file : await freshPostgresDatabase();

/**
 * Runtimes of one test on one database of `backend` (a SQLite file of the test, or a fresh
 * PostgreSQL database), each made by `harness` with `defaults` and the call's own overrides.
 */
export function sharedLedger(
  harness: RuntimeHarness,
  backend: BackendName,
  defaults: Partial<AgentRuntimeConfig> = {},
) {
  let database: string | undefined;
  afterEach(() => {
    database = undefined;
  });
  const ledger = async () => {
    database ??= await freshDatabase(backend, harness.dbFile());
    return database;
  };
  const makeRuntime = async (overrides: Partial<AgentRuntimeConfig> = {}) =>
    harness.makeRuntime({ database: await ledger(), ...defaults, ...overrides });
  return { ledger, makeRuntime };
}
