/**
 * The takeover race suite: real processes on one ledger — PostgreSQL with three supervising
 * replicas, or SQLite with one — and an owner process per round that starts a run whose single
 * tool call (`refund`, mutating, not idempotent) is SIGKILLed or SIGSTOPped in flight: during the
 * tool call, during sampling, or while the call waits for approval, with the approval issued
 * before, during or after a replica takes the run over. Some rounds also kill the replica that
 * took over while it runs the tool. The tool appends to a side-effect file outside the ledger the
 * moment its executor is invoked; the suite then checks, per run:
 *
 * - exactly one terminal event, and the run row closed;
 * - exactly one receipt per call;
 * - at most one execution per call, and one exactly when its receipt is `ok`;
 * - an execution only after a start record, and no receipt saying `started` without one;
 * - an approved call that never started before the kill runs once (a decision is never lost).
 *
 * Children: fuzz/raceChild.mjs, over the built package (dist/).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Sqlite from "better-sqlite3";
import Pg from "pg";
import { makeRandom } from "./killFuzz.js";
import type { FuzzReport } from "./report.js";

const CHILD = fileURLToPath(new URL("./raceChild.mjs", import.meta.url));
const LEASE_MS = 1_000;

export interface RaceOptions {
  readonly backend: "postgres" | "sqlite";
  readonly rounds: number;
  readonly dir: string;
  /** A PostgreSQL server (postgres backend): a fresh database is created on it for the suite. */
  readonly pgUrl?: string | undefined;
  readonly seed?: number | undefined;
  /** Rounds in flight at once (default 3). */
  readonly concurrency?: number | undefined;
}

const SCENARIOS = [
  "kill-tool",
  "kill-sampling",
  "kill-approval-before",
  "kill-approval-during",
  "kill-approval-after",
  "stop-tool",
  "stop-approval",
] as const;
type Scenario = (typeof SCENARIOS)[number];

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A child process and the lines it printed, with waits on them. */
class Child {
  readonly lines: string[] = [];
  private readonly waiters = new Set<{ test: (line: string) => boolean; resolve: (line: string) => void }>();
  readonly exited: Promise<number | null>;
  stderr = "";

  constructor(readonly process: ChildProcess) {
    let buffer = "";
    process.stdout!.setEncoding("utf8");
    process.stdout!.on("data", (chunk: string) => {
      buffer += chunk;
      let newline = buffer.indexOf("\n");
      while (newline >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf("\n");
        this.lines.push(line);
        for (const waiter of [...this.waiters]) {
          if (waiter.test(line)) {
            this.waiters.delete(waiter);
            waiter.resolve(line);
          }
        }
      }
    });
    process.stderr!.setEncoding("utf8");
    process.stderr!.on("data", (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-4_000);
    });
    process.stdin!.on("error", () => undefined);
    this.exited = new Promise((resolve) => process.on("exit", (code) => resolve(code)));
  }

  get alive(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  /** The first line (already printed or to come) that passes `test`; undefined after `timeoutMs`. */
  waitFor(test: (line: string) => boolean, timeoutMs: number): Promise<string | undefined> {
    const seen = this.lines.find(test);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve) => {
      const waiter = { test, resolve: (line: string) => resolve(line) };
      this.waiters.add(waiter);
      setTimeout(() => {
        if (this.waiters.delete(waiter)) resolve(undefined);
      }, timeoutMs).unref();
    });
  }

  /** Set when this suite killed it (a death it did not cause is a finding). */
  killed = false;

  signal(name: NodeJS.Signals): void {
    if (name === "SIGKILL") this.killed = true;
    if (this.alive) this.process.kill(name);
  }
}

function spawnChild(args: ReadonlyArray<string>): Child {
  return new Child(spawn(process.execPath, [CHILD, ...args], { stdio: ["pipe", "pipe", "pipe"] }));
}

interface RunRows {
  readonly terminals: number;
  readonly state: string | undefined;
  readonly calls: ReadonlyArray<string>;
  readonly receipts: ReadonlyArray<{ callId: string; status: string; evidence: Record<string, unknown> }>;
  readonly starts: ReadonlyArray<{ callId: string; attempt: number }>;
  readonly approved: ReadonlyArray<string>;
}

interface LedgerReader {
  readonly read: (runId: string) => Promise<RunRows>;
  /** The run's event types in order, its approval rows and its lease, for a stall report. */
  readonly describe: (runId: string) => Promise<string>;
  readonly close: () => Promise<void>;
}

const QUERIES = {
  terminals: "SELECT COUNT(*) AS n FROM agent_run_events WHERE run_id = $1 AND event_type = 'terminal'",
  state: "SELECT terminal_state AS state FROM agent_runs WHERE run_id = $1",
  calls: "SELECT payload_json FROM agent_run_events WHERE run_id = $1 AND event_type = 'tool_call'",
  receipts: "SELECT call_id, status, evidence_json FROM agent_execution_receipts WHERE run_id = $1",
  starts: "SELECT call_id, attempt FROM agent_tool_starts WHERE run_id = $1",
  approved: "SELECT call_id FROM agent_approvals WHERE run_id = $1 AND kind = 'approved'",
} as const;

async function ledgerReader(database: string, postgres: boolean): Promise<LedgerReader> {
  const rowsOf = postgres
    ? await (async () => {
        const client = new Pg.Client({ connectionString: database });
        await client.connect();
        // One connection: its queries run one after another.
        let queue: Promise<unknown> = Promise.resolve();
        const all = (query: string, runId: string) => {
          const rows = queue.then(async () => (await client.query(query, [runId])).rows);
          queue = rows.catch(() => undefined);
          return rows;
        };
        return { all, close: () => client.end() };
      })()
    : (() => {
        const all = async (query: string, runId: string) => {
          const db = new Sqlite(database, { readonly: true, fileMustExist: true });
          try {
            db.pragma("busy_timeout = 5000");
            return db.prepare(query.replace("$1", "?")).all(runId) as Array<Record<string, unknown>>;
          } finally {
            db.close();
          }
        };
        return { all, close: async () => undefined };
      })();
  const read = async (runId: string): Promise<RunRows> => {
    const [terminals, state, calls, receipts, starts, approved] = await Promise.all(
      Object.values(QUERIES).map((query) => rowsOf.all(query, runId)),
    );
    return {
      terminals: Number(terminals![0]?.n ?? 0),
      state: state![0]?.state as string | undefined,
      calls: calls!.map((row) => String(JSON.parse(String(row.payload_json)).callId)),
      receipts: receipts!.map((row) => ({
        callId: String(row.call_id),
        status: String(row.status),
        evidence: JSON.parse(String(row.evidence_json)) as Record<string, unknown>,
      })),
      starts: starts!.map((row) => ({ callId: String(row.call_id), attempt: Number(row.attempt) })),
      approved: approved!.map((row) => String(row.call_id)),
    };
  };
  const describe = async (runId: string) => {
    const [events, approvals, lease] = await Promise.all([
      rowsOf.all("SELECT sequence, event_type FROM agent_run_events WHERE run_id = $1 ORDER BY sequence", runId),
      rowsOf.all("SELECT call_id, kind FROM agent_approvals WHERE run_id = $1", runId),
      rowsOf.all("SELECT * FROM run_leases WHERE run_id = $1", runId),
    ]);
    return `events ${events.map((row) => row.event_type).join(",")}; approvals ${approvals
      .map((row) => `${row.call_id}:${row.kind}`)
      .join(",")}; lease ${JSON.stringify(lease[0] ?? null)}`;
  };
  return { read, describe, close: rowsOf.close };
}

async function freshPostgresDatabase(serverUrl: string): Promise<string> {
  const name = `agentloop_race_${randomBytes(5).toString("hex")}`;
  const admin = new Pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE template0`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function dropPostgresDatabase(serverUrl: string, database: string): Promise<void> {
  const admin = new Pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${new URL(database).pathname.slice(1)} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

export interface RaceReport extends FuzzReport {
  readonly stalls: ReadonlyArray<string>;
}

export async function runRaceFuzz(options: RaceOptions): Promise<RaceReport> {
  const postgres = options.backend === "postgres";
  if (postgres && !options.pgUrl) throw new Error("the postgres race suite needs a server (AGENTLOOP_TEST_PG_URL)");
  const random = makeRandom(options.seed ?? 20261202);
  const database = postgres ? await freshPostgresDatabase(options.pgUrl!) : join(options.dir, "race.db");
  const effectsFile = join(options.dir, `effects-${options.backend}.log`);
  writeFileSync(effectsFile, "");
  const figures = {
    rounds: 0,
    kills: 0,
    stops: 0,
    replicaKills: 0,
    takeovers: 0,
    approvals: 0,
    approvalRetries: 0,
    executions: 0,
    calls: 0,
    receipts: 0,
    uncertainReceipts: 0,
    roundsTimedOut: 0,
    ownersNotStarted: 0,
    ownersFencedEarly: 0,
    approvedStartsFenced: 0,
  };
  const scenarioCounts: Record<string, number> = {};
  const terminalCounts: Record<string, number> = {};
  const violations: string[] = [];
  /** Runs no replica brought to an end in time: a failure of liveness, apart from the safety checks. */
  const stalls: string[] = [];

  // The first process migrates the database; the others start once it is ready.
  const replicaCount = postgres ? 3 : 1;
  const replicas: Child[] = [];
  const everyReplica: Child[] = [];
  const spawnReplica = async () => {
    const replica = spawnChild(["replica", database, effectsFile, "300"]);
    replicas.push(replica);
    everyReplica.push(replica);
    void replica.exited.then((code) => {
      if (!replica.killed) {
        violations.push(`a replica exited by itself (code ${code}): ${replica.stderr.slice(-500).trim()}`);
      }
    });
    if ((await replica.waitFor((line) => line === "ready", 120_000)) === undefined) {
      replica.signal("SIGKILL");
      throw new Error(`a replica did not start within 120 s: ${replica.stderr}`);
    }
    return replica;
  };
  /**
   * Keeps the pool at strength: a replica killed by a round is replaced (one respawn at a time).
   * The in-flight respawn is cleared by identity, because a pool already at strength settles the
   * loop synchronously, before the assignment that would otherwise leave a settled promise behind
   * and stop every later refill.
   */
  let refilling: Promise<void> | undefined;
  const refill = (): Promise<void> => {
    if (refilling) return refilling;
    if (liveReplicas().length >= replicaCount) return Promise.resolve();
    const pending = (async () => {
      while (liveReplicas().length < replicaCount) await spawnReplica();
    })().finally(() => {
      if (refilling === pending) refilling = undefined;
    });
    refilling = pending;
    return pending;
  };
  for (let index = 0; index < replicaCount; index++) await spawnReplica();
  const liveReplicas = () => replicas.filter((replica) => replica.alive);
  const anyReplica = () => {
    const live = liveReplicas();
    return live[Math.floor(random.next() * live.length)];
  };
  /** The replica that took the run over; undefined after `timeoutMs` (also when none is alive). */
  const whoResumed = (runId: string, timeoutMs: number) =>
    Promise.race([
      ...liveReplicas().map((replica) =>
        replica.waitFor((line) => line === `resumed ${runId}`, timeoutMs).then((line) => (line ? replica : undefined)),
      ),
      sleep(timeoutMs).then(() => undefined),
    ]);
  /**
   * An operator's approval, which must not be lost to the chaos: a replica killed by another
   * round before it recorded the decision says nothing, so the decision is asked of another live
   * replica until one answers (recorded, or refused because the call has one already).
   */
  const approve = async (runId: string) => {
    figures.approvals += 1;
    for (let attempt = 0; attempt < 10; attempt++) {
      const replica = anyReplica();
      if (!replica) {
        await sleep(500);
        continue;
      }
      replica.process.stdin!.write(`approve ${runId} c1\n`);
      const said = await Promise.race([
        replica.waitFor((line) => line.startsWith(`decided ${runId} c1`), 10_000),
        replica.exited.then(() => undefined),
      ]);
      if (said !== undefined) return;
      figures.approvalRetries += 1;
    }
    violations.push(`${runId}: no live replica recorded the approval in 10 attempts`);
  };

  const reader = await ledgerReader(database, postgres);

  /** The run's rows once it closed, or as they stand 90 s on. */
  const settledRows = async (runId: string) => {
    let rows = await reader.read(runId);
    const deadline = Date.now() + 90_000;
    while ((rows.state === "running" || rows.state === undefined) && Date.now() < deadline) {
      await sleep(200);
      rows = await reader.read(runId);
    }
    // The terminal event and the run row's state commit together: once the state is seen closed,
    // one more read sees every row of the run (the reads above are not one snapshot).
    return reader.read(runId);
  };

  const round = async (index: number) => {
    const scenario: Scenario = SCENARIOS[index % SCENARIOS.length]!;
    const killTakerOver = random.next() < 0.25 && postgres;
    const runId = `race-${options.backend}-${index}-${randomBytes(3).toString("hex")}`;
    const withApproval = scenario.includes("approval");
    const owner = spawnChild([
      "owner",
      database,
      effectsFile,
      runId,
      withApproval ? "1" : "0",
      scenario === "kill-sampling" ? "1500" : "30",
      scenario.endsWith("tool") ? "800" : "300",
    ]);
    scenarioCounts[scenario] = (scenarioCounts[scenario] ?? 0) + 1;
    const trigger =
      scenario === "kill-sampling" ? `sampling ${runId}` : withApproval ? `waiting ${runId} c1` : `tool ${runId} c1`;
    const seen = await owner.waitFor((line) => line === trigger || line.startsWith(`finished ${runId} `), 120_000);
    if (seen?.startsWith(`finished ${runId} failed ledger_write_failed`)) {
      // The owner was too slow to renew its lease (a loaded machine) and a replica took the run over
      // before the kill point: its writes were fenced off. The round still checks the run below.
      figures.ownersFencedEarly += 1;
      owner.signal("SIGKILL");
      await owner.exited;
      const rows = await settledRows(runId);
      figures.rounds += 1;
      if (rows.state === "running" || rows.state === undefined) {
        figures.roundsTimedOut += 1;
        stalls.push(`${runId} (${scenario}): still ${rows.state ?? "absent"} 90 s after its owner was fenced off`);
        return;
      }
      check(runId, scenario, rows);
      return;
    }
    if (seen === undefined || seen.startsWith(`finished ${runId} `)) {
      // An owner that printed nothing in two minutes did not get a core on a loaded machine: the
      // round did not happen (counted). One that failed or printed an error is a finding.
      owner.signal("SIGKILL");
      await owner.exited;
      if (owner.lines.length === 0 && owner.stderr.trim() === "") figures.ownersNotStarted += 1;
      else
        violations.push(
          `${runId} (${scenario}): the owner never reached "${trigger}" — ${owner.lines.join(" / ")} ${owner.stderr.slice(-300)}`,
        );
      return;
    }
    if (scenario === "kill-sampling") await sleep(random.int(0, 300));
    const stop = scenario.startsWith("stop");
    owner.signal(stop ? "SIGSTOP" : "SIGKILL");
    if (stop) figures.stops += 1;
    else figures.kills += 1;
    // Chaos: the replica that took the run over is killed as soon as it invokes the tool.
    const killer = killTakerOver
      ? (async () => {
          const taker = await whoResumed(runId, 15_000);
          if (!taker) return;
          if ((await taker.waitFor((line) => line === `tool ${runId} c1`, 15_000)) && taker.alive) {
            taker.signal("SIGKILL");
            figures.replicaKills += 1;
            void refill().catch(() => undefined);
          }
        })()
      : Promise.resolve();
    switch (scenario) {
      case "kill-approval-before":
      case "stop-approval":
        await approve(runId);
        break;
      case "kill-approval-during":
        await sleep(LEASE_MS + random.int(-200, 200));
        await approve(runId);
        break;
      case "kill-approval-after":
        await whoResumed(runId, 15_000);
        await approve(runId);
        break;
      default:
        break;
    }
    if (stop) {
      // The stopped owner wakes up after a replica took its run over: its late writes and starts
      // must all be refused.
      await whoResumed(runId, 15_000);
      owner.signal("SIGCONT");
      await sleep(random.int(100, 600));
      owner.signal("SIGKILL");
    }
    await killer;
    const rows = await settledRows(runId);
    owner.signal("SIGKILL");
    await owner.exited;
    figures.rounds += 1;
    if (rows.state === "running" || rows.state === undefined) {
      figures.roundsTimedOut += 1;
      // What each process said about the run, and where its ledger stands: the stall's story.
      const said = everyReplica
        .map((replica, index) => {
          const lines = replica.lines.filter((line) => line.includes(runId));
          return lines.length > 0 ? `replica ${index}${replica.alive ? "" : " (dead)"}: ${lines.join(" | ")}` : "";
        })
        .filter((line) => line !== "");
      stalls.push(
        `${runId} (${scenario}): still ${rows.state ?? "absent"} 90 s after the kill — owner: ${owner.lines.join(" | ")}; ${said.join("; ") || "no replica mentioned it"}; calls ${rows.calls.length}, starts ${rows.starts.length}, receipts ${rows.receipts.length}, approved ${rows.approved.length}; ${await reader.describe(runId)}`,
      );
      return;
    }
    check(runId, scenario, rows);
  };

  const check = (runId: string, scenario: Scenario, rows: RunRows) => {
    const effects = readFileSync(effectsFile, "utf8")
      .split("\n")
      .filter((line) => line.startsWith(`${runId} `));
    terminalCounts[rows.state!] = (terminalCounts[rows.state!] ?? 0) + 1;
    if (rows.terminals !== 1) violations.push(`${runId} (${scenario}): ${rows.terminals} terminal events`);
    for (const callId of rows.calls) {
      figures.calls += 1;
      const executions = effects.filter((line) => line.split(" ")[1] === callId).length;
      figures.executions += executions;
      const receipts = rows.receipts.filter((receipt) => receipt.callId === callId);
      figures.receipts += receipts.length;
      const started = rows.starts.some((start) => start.callId === callId);
      if (receipts.length !== 1) violations.push(`${runId}/${callId} (${scenario}): ${receipts.length} receipts`);
      if (executions > 1) violations.push(`${runId}/${callId} (${scenario}): executed ${executions} times`);
      if (executions > 0 && !started) {
        violations.push(`${runId}/${callId} (${scenario}): executed without a start record`);
      }
      for (const receipt of receipts) {
        if (receipt.evidence.side_effect_unknown === true) figures.uncertainReceipts += 1;
        if (receipt.status === "ok" && executions !== 1) {
          violations.push(`${runId}/${callId} (${scenario}): an ok receipt for ${executions} executions`);
        }
        if (receipt.evidence.started === true && !started) {
          violations.push(`${runId}/${callId} (${scenario}): a receipt says started, no start record says so`);
        }
      }
      // The call waited for approval when the owner was stopped: it had not started, so an approval
      // recorded for it must make it run — once. The one honest exception: the driving replica's own
      // lease lapsed (a loaded machine) as it went to start the call, and the fence refused the start.
      const fenced = receipts.some(
        (receipt) => receipt.evidence.started === false && typeof receipt.evidence.refusal === "string",
      );
      if (scenario.includes("approval") && rows.approved.includes(callId)) {
        if (executions === 0 && fenced) figures.approvedStartsFenced += 1;
        else if (executions !== 1) {
          violations.push(
            `${runId}/${callId} (${scenario}): approved, executed ${executions} times; receipts ${JSON.stringify(receipts)}`,
          );
        }
      }
    }
  };

  try {
    const concurrency = Math.max(1, options.concurrency ?? 3);
    let next = 0;
    const lanes = Array.from({ length: concurrency }, async () => {
      while (next < options.rounds) {
        const index = next++;
        await refill();
        await round(index);
        await refill();
      }
    });
    await Promise.all(lanes);
    for (const replica of everyReplica) {
      figures.takeovers += replica.lines.filter((line) => line.startsWith("resumed ")).length;
    }
  } finally {
    for (const replica of replicas) replica.signal("SIGKILL");
    await Promise.all(replicas.map((replica) => replica.exited));
    await reader.close();
    if (postgres) await dropPostgresDatabase(options.pgUrl!, database).catch(() => undefined);
  }
  return {
    suite: `raceFuzz.${options.backend}`,
    figures: {
      ...figures,
      scenarios: JSON.stringify(scenarioCounts),
      terminalStates: JSON.stringify(terminalCounts),
      effectsFile: existsSync(effectsFile) ? effectsFile : "",
    },
    violations,
    stalls,
  };
}
