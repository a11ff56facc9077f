/**
 * Failover: two runtimes in separate processes on one ledger. The first (a real child
 * running the built package) drives a run into a step with a slow observe call and a slow mutate
 * call and is SIGKILLed mid-tool. The second, supervising, takes the run over — a new lease
 * epoch — re-runs the observe call, reports the mutate call `side_effect_unknown`, and finishes
 * the run with exactly one terminal event. A write under the dead runtime's epoch is refused.
 * On SQLite and on PostgreSQL.
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import { SqlClient } from "@effect/sql";
import { Effect } from "effect";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentRuntime, defineTool, type RunHandle } from "../../src/index.js";
import { toLedgerError } from "../../src/persistence/ledgerWriter.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { BACKENDS, freshDatabase, noticePostgresSkipped } from "../support/backends.js";
import { ledgerViolations, readLedger } from "../support/runtimeHarness.js";
import { useTempDir } from "../support/tempDir.js";

const tmp = useTempDir("agentloop-failover-");
noticePostgresSkipped();
const ROOT = resolve(import.meta.dirname, "../..");

/** Drives one run whose first step calls a slow observe tool and a slow mutate tool; prints when both started. */
const DRIVER = `
import { AgentRuntime, defineTool } from "./dist/index.js";
import { scriptedProvider } from "./dist/entries/testing.js";
import { z } from "zod";
const database = process.argv.at(-1);
const runtime = await AgentRuntime.make({ database, lease: { durationMs: 1500, renewEveryMs: 300 } });
let started = 0;
const slow = (name, kind) => defineTool({
  name, kind, description: name, input: z.object({ order: z.string() }),
  execute: async () => {
    started += 1;
    if (started === 2) process.stdout.write("calling\\n");
    await new Promise(() => {});
  },
});
runtime.startRun({
  runId: "failover",
  sessionId: "replicas",
  input: "Check order 7, then refund it.",
  tools: [slow("lookup", "observe"), slow("refund", "mutate")],
  provider: scriptedProvider([
    { toolCalls: [{ id: "c1", name: "lookup", arguments: { order: "7" } }, { id: "c2", name: "refund", arguments: { order: "7" } }] },
  ]),
});
`;

type Driver = ChildProcessByStdio<Writable, Readable, Readable>;
const drivers: Driver[] = [];
const runtimes: AgentRuntime[] = [];
afterEach(async () => {
  for (const child of drivers.splice(0)) child.kill("SIGKILL");
  for (const runtime of runtimes.splice(0)) await runtime.dispose();
});

function startDriver(database: string): Promise<Driver> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", DRIVER, database], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "pipe"],
  });
  drivers.push(child);
  return new Promise((ready, fail) => {
    let out = "";
    let err = "";
    child.stderr.on("data", (chunk) => {
      err += String(chunk);
    });
    child.stdout.on("data", (chunk) => {
      out += String(chunk);
      if (out.includes("calling\n")) ready(child);
    });
    child.once("close", (code) => fail(new Error(`the driver exited ${code} before calling: ${err}`)));
  });
}

const killed = (child: Driver) =>
  new Promise<void>((done) => {
    child.once("close", () => done());
    child.kill("SIGKILL");
  });

describe.each(BACKENDS)("failover between two runtime processes on %s", (backend) => {
  it("takes the killed runtime's run over, re-runs the observe call, reports the mutate call, ends once", async () => {
    const database = await freshDatabase(backend, tmp.path("ledger.db"));
    await killed(await startDriver(database));

    const ran: string[] = [];
    const lookup = defineTool({
      name: "lookup",
      description: "Looks an order up.",
      kind: "observe",
      input: z.object({ order: z.string() }),
      execute: async ({ order }) => {
        ran.push(`lookup ${order}`);
        return { status: "ok", output: `order ${order}: shipped` };
      },
    });
    const refund = defineTool({
      name: "refund",
      description: "Refunds an order.",
      kind: "mutate",
      input: z.object({ order: z.string() }),
      execute: async () => {
        ran.push("refund");
        return { status: "ok", output: "refunded" };
      },
    });
    let resumed: RunHandle | undefined;
    const successor = await AgentRuntime.make({
      database,
      tools: [lookup, refund],
      provider: scriptedProvider([{ text: "Order 7 has shipped; whether the refund went through is unknown." }]),
      supervise: {
        intervalMs: 100,
        onResumed: (handle) => {
          resumed ??= handle;
        },
      },
    });
    runtimes.push(successor);
    await expect.poll(() => resumed?.runId, { timeout: 15_000 }).toBe("failover");
    const result = await resumed!.result;
    expect(result.terminalState).toBe("completed");
    expect(ran).toEqual(["lookup 7"]);

    const ledger = await readLedger(successor, "failover");
    expect(ledgerViolations(ledger)).toEqual([]);
    expect(ledger.events.filter((event) => event.type === "terminal")).toHaveLength(1);
    const byCall = Object.fromEntries(ledger.receipts.map((receipt) => [receipt.callId, receipt]));
    expect(byCall.c1).toMatchObject({ status: "ok" });
    expect(byCall.c2).toMatchObject({
      status: "cancelled",
      evidence: expect.objectContaining({ side_effect_unknown: true }),
    });

    // The dead runtime's epoch was 1; a write under it (into a run that is still open) is refused.
    const stale = await successor.run(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient;
        yield* sql`INSERT INTO agent_runs (run_id, session_id, terminal_state, completion_contract_json, trace_id, started_at)
          VALUES ('other', 's', 'running', '{}', 't', 'now')`;
        yield* sql`INSERT INTO run_leases (run_id, owner_id, epoch, expires_at) VALUES ('other', 'b', 2, 0)`;
        return yield* sql`INSERT INTO agent_run_events (run_id, sequence, event_type, payload_json, created_at, lease_epoch)
          VALUES ('other', 1, 'user_input', '{}', 'now', 1)`.pipe(
          Effect.map(() => "accepted"),
          Effect.catchAll((error) => Effect.succeed(toLedgerError(error, "stale").reason)),
        );
      }),
    );
    expect(stale).toBe("stale_lease");
  });
});

/**
 * Where expiries are jobs (PostgreSQL), a supervisor does not scan on a timer: a runtime killed
 * without a word is taken over when its lease's expiry job comes due, never before the lease ends.
 */
describe.each(BACKENDS.filter((backend) => backend === "postgres"))("takeover by expiry job on %s", (backend) => {
  it("takes a silently killed runtime's run over once its lease has expired, though its scan interval is 50 ms", async () => {
    const database = await freshDatabase(backend, tmp.path("ledger.db"));
    const driver = await startDriver(database);
    let resumedAt: number | undefined;
    let resumed: RunHandle | undefined;
    const successor = await AgentRuntime.make({
      database,
      tools: [
        defineTool({
          name: "lookup",
          description: "Looks an order up.",
          kind: "observe",
          input: z.object({ order: z.string() }),
          execute: async () => ({ status: "ok", output: "shipped" }),
        }),
      ],
      provider: scriptedProvider([{ text: "Order 7 has shipped." }]),
      supervise: {
        intervalMs: 50,
        onResumed: (handle) => {
          resumedAt ??= Date.now();
          resumed ??= handle;
        },
      },
    });
    runtimes.push(successor);
    // The supervisor's first look finds the run driven by a live process.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(resumed).toBeUndefined();
    await killed(driver);
    const [lease] = await successor.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ expires_at: number }>`SELECT expires_at FROM run_leases WHERE run_id = 'failover'`,
      ),
    );
    await expect.poll(() => resumed?.runId, { timeout: 15_000 }).toBe("failover");
    expect(resumedAt).toBeGreaterThanOrEqual(Number(lease?.expires_at));
    await resumed!.result;
  });
});
