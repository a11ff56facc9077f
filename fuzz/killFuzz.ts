/**
 * Kill fuzz: child processes (fuzz/killChild.mjs, the built package) drive real runs on real
 * SQLite ledger files and are SIGKILLed at random moments; then the ledger is recovered and
 * checked. A kill point is one SIGKILLed child.
 *
 * Each lane (`parallelism` of them run at once) owns a few database files and reuses them round
 * after round, so recovery always works on a file with history. A round spawns 1–3 children on one
 * file and is one of:
 * - `killAll`: every child is SIGKILLed 0–400 ms after it reports `loaded` (before, during or
 *   after opening the runtime, mid-step, mid tool batch, mid terminal write);
 * - `killSome`: one child is SIGKILLed, the others run to their end by themselves;
 * - `live`: the survivors hold a run open (a `gate` tool call) while the others are SIGKILLed,
 *   and the file is recovered while the survivors are alive: their runs must be left to them and
 *   end with their own normal state; the killed children's runs must be closed failed/interrupted.
 * Recovery is either `AgentRuntime.make` in this process or `agentloop recover --json` (the CLI).
 *
 * After every round, on a read-only connection:
 * 1. every closed run has exactly one terminal event, the last one, and the run row's state and
 *    reason are the terminal event's; no run is left open (in `live` rounds before the release: only
 *    the survivors' runs);
 * 2. sequences are 1..n per run;
 * 3. every tool_call of a closed run has exactly one receipt, every receipt its tool_call, every
 *    tool_result follows its tool_call and is the only one;
 * 4. `PRAGMA integrity_check` is ok;
 * 5. recovering again recovers nothing and leaves the database digest unchanged;
 * 6. runs closed before recovery are byte-identical after it (digest of their rows), and a run a
 *    child reported finished is closed with the state it reported;
 * 7. no child ended other than by our SIGKILL, except by itself with exit code 0 after `done`, all
 *    its runs finished with their expected state (`completed`, or `cancelled` when it cancelled).
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import Sqlite from "better-sqlite3";
import { Effect, Logger, LogLevel } from "effect";
import { AgentRunStore, type RecoveredRun } from "../src/persistence/AgentRunStore.js";
import * as Ledger from "../src/persistence/ledger.js";
import { AgentRuntime } from "../src/runtime/AgentRuntime.js";
import type { FuzzReport } from "./report.js";

const ROOT = resolve(import.meta.dirname, "..");
const CHILD = join(ROOT, "fuzz", "killChild.mjs");
const CLI = join(ROOT, "bin", "agentloop.mjs");

export interface KillFuzzOptions {
  /** How many children to SIGKILL in all (the suite stops starting rounds once they are planned). */
  readonly killPoints: number;
  readonly seed?: number;
  /** Rounds run at once, each lane on its own files (default 3). */
  readonly parallelism?: number;
  /** Where the database files go (default: a fresh temporary directory, removed afterwards). */
  readonly dir?: string;
  /** Database files per lane, reused round after round (default 2). */
  readonly filesPerLane?: number;
  /**
   * The longest delay before a SIGKILL (default 400 ms), counted from the child's `loaded` (a third
   * of the kills: they land while the runtime opens, migrates, recovers) or from its `opened` (the
   * rest: mid-step, mid tool batch, mid terminal write, between runs).
   */
  readonly maxKillDelayMs?: number;
  /**
   * Children load dist/ bundled into one module (esbuild, built once per suite from dist/): the
   * same code, about half the start-up CPU. Default true; without esbuild they import dist/ itself.
   */
  readonly bundle?: boolean;
}

// --- Seeded randomness -------------------------------------------------------------------------

export interface Random {
  next(): number;
  int(min: number, max: number): number;
  chance(p: number): boolean;
  pick<T>(items: ReadonlyArray<T>): T;
}

/** mulberry32, the same generator as the child's. */
export function makeRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)]!,
  };
}

// --- Reading and checking a ledger file --------------------------------------------------------

interface RunRow {
  run_id: string;
  terminal_state: string;
  failure_code: string | null;
  [column: string]: unknown;
}
interface EventRow {
  run_id: string;
  sequence: number;
  event_type: string;
  payload_json: string;
  [column: string]: unknown;
}
interface ReceiptRow {
  run_id: string;
  call_id: string;
  status: string;
  [column: string]: unknown;
}

export interface LedgerView {
  readonly runs: ReadonlyMap<string, RunRow>;
  readonly events: ReadonlyMap<string, ReadonlyArray<EventRow>>;
  readonly receipts: ReadonlyMap<string, ReadonlyArray<ReceiptRow>>;
  /** sha256 of each run's rows: its run row, its events by sequence, its receipts by id. */
  readonly runDigests: ReadonlyMap<string, string>;
  /** sha256 of every row of every table of the file. */
  readonly databaseDigest: string;
  readonly integrity: string;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

function groupBy<T extends { run_id: string }>(rows: ReadonlyArray<T>): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const row of rows) {
    const list = map.get(row.run_id);
    if (list) list.push(row);
    else map.set(row.run_id, [row]);
  }
  return map;
}

/** Reads the whole file through a read-only connection (WAL included). */
const EMPTY_VIEW: LedgerView = {
  runs: new Map(),
  events: new Map(),
  receipts: new Map(),
  runDigests: new Map(),
  databaseDigest: "",
  integrity: "ok",
};

/**
 * Reads the whole file through a read-only connection (WAL included). A file a child never got to
 * migrate (killed while opening) reads as an empty ledger when `maybeUnmigrated`.
 */
export function readLedgerFile(file: string, maybeUnmigrated = false): LedgerView {
  if (maybeUnmigrated && !existsSync(file)) return EMPTY_VIEW;
  const db = new Sqlite(file, { readonly: true, fileMustExist: true });
  if (
    maybeUnmigrated &&
    !db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'agent_runs'").get()
  ) {
    db.close();
    return EMPTY_VIEW;
  }
  try {
    db.pragma("busy_timeout = 5000");
    return db.transaction(() => {
      const integrity = (db.pragma("integrity_check") as Array<{ integrity_check: string }>)
        .map((row) => row.integrity_check)
        .join("; ");
      const runRows = db.prepare("SELECT * FROM agent_runs ORDER BY run_id").all() as RunRow[];
      const eventRows = db
        .prepare("SELECT * FROM agent_run_events ORDER BY run_id, sequence, event_id")
        .all() as EventRow[];
      const receiptRows = db
        .prepare("SELECT * FROM agent_execution_receipts ORDER BY run_id, receipt_id")
        .all() as ReceiptRow[];
      const events = groupBy(eventRows);
      const receipts = groupBy(receiptRows);
      const runs = new Map(runRows.map((row) => [row.run_id, row]));
      const runDigests = new Map(
        runRows.map((row) => [
          row.run_id,
          sha256(JSON.stringify([row, events.get(row.run_id) ?? [], receipts.get(row.run_id) ?? []])),
        ]),
      );
      const tables = (
        db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{
          name: string;
        }>
      ).map((row) => row.name);
      const whole = createHash("sha256");
      for (const table of tables) {
        whole.update(`table ${table}\n`);
        for (const row of db.prepare(`SELECT * FROM "${table}" ORDER BY rowid`).all()) {
          whole.update(`${JSON.stringify(row)}\n`);
        }
      }
      return { runs, events, receipts, runDigests, databaseDigest: whole.digest("hex"), integrity };
    })();
  } finally {
    db.close();
  }
}

const callIdOf = (event: EventRow): string | undefined => {
  const payload = JSON.parse(event.payload_json) as { callId?: unknown };
  return typeof payload.callId === "string" ? payload.callId : undefined;
};

/**
 * Invariants 1–4 over a whole file. `mayBeOpen` names the runs allowed to be `running` (those of a
 * live process); every other run must be closed.
 */
export function ledgerBreaks(view: LedgerView, mayBeOpen: (runId: string) => boolean = () => false): string[] {
  const breaks: string[] = [];
  if (view.integrity !== "ok") breaks.push(`integrity_check: ${view.integrity}`);
  for (const [runId, run] of view.runs) {
    const events = view.events.get(runId) ?? [];
    const receipts = view.receipts.get(runId) ?? [];
    const open = run.terminal_state === "running";
    if (open && !mayBeOpen(runId)) breaks.push(`run ${runId}: still running after recovery`);
    events.forEach((event, index) => {
      if (event.sequence !== index + 1) {
        breaks.push(`run ${runId}: sequence ${event.sequence} at position ${index + 1} (not contiguous from 1)`);
      }
    });
    const terminals = events.filter((event) => event.event_type === "terminal");
    if (open) {
      if (terminals.length > 0) breaks.push(`run ${runId}: running with ${terminals.length} terminal event(s)`);
    } else if (terminals.length !== 1) {
      breaks.push(`run ${runId}: ${run.terminal_state} with ${terminals.length} terminal events`);
    } else {
      const terminal = terminals[0]!;
      if (events.at(-1) !== terminal) breaks.push(`run ${runId}: the terminal event is not the last event`);
      const payload = JSON.parse(terminal.payload_json) as { terminalState?: unknown; reason?: unknown };
      if (payload.terminalState !== run.terminal_state) {
        breaks.push(
          `run ${runId}: row says ${run.terminal_state}, terminal event says ${String(payload.terminalState)}`,
        );
      }
      if (payload.reason !== run.failure_code) {
        breaks.push(`run ${runId}: row reason ${run.failure_code}, terminal event reason ${String(payload.reason)}`);
      }
    }
    const calls = new Map<string, number>();
    const results = new Map<string, number>();
    for (const event of events) {
      if (event.event_type !== "tool_call" && event.event_type !== "tool_result") continue;
      const callId = callIdOf(event);
      if (!callId) {
        breaks.push(`run ${runId}: ${event.event_type} at ${event.sequence} without a callId`);
        continue;
      }
      if (event.event_type === "tool_call") {
        if (calls.has(callId)) breaks.push(`run ${runId}: call ${callId} recorded twice`);
        calls.set(callId, event.sequence);
      } else {
        const at = calls.get(callId);
        if (at === undefined || at > event.sequence) breaks.push(`run ${runId}: result of ${callId} before its call`);
        if (results.has(callId)) breaks.push(`run ${runId}: call ${callId} has two results`);
        results.set(callId, event.sequence);
      }
    }
    const receiptCount = new Map<string, number>();
    for (const receipt of receipts) receiptCount.set(receipt.call_id, (receiptCount.get(receipt.call_id) ?? 0) + 1);
    for (const [callId, count] of receiptCount) {
      if (!calls.has(callId)) breaks.push(`run ${runId}: receipt of ${callId} without its tool_call`);
      if (count > 1) breaks.push(`run ${runId}: call ${callId} has ${count} receipts`);
    }
    if (!open) {
      for (const callId of calls.keys()) {
        if (!receiptCount.has(callId)) breaks.push(`run ${runId}: call ${callId} closed without a receipt`);
      }
    }
  }
  return breaks;
}

// --- Recovery ----------------------------------------------------------------------------------

interface RecoveryOutcome {
  readonly recovered: ReadonlyArray<RecoveredRun>;
  /** Runs the recovery named as left to a live process (the CLI only; the runtime does not say). */
  readonly live: ReadonlyArray<{ runId: string; pid: number }> | undefined;
}

const quiet = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Logger.withMinimumLogLevel(LogLevel.None)) as Effect.Effect<A, E, R>;

/** `AgentRuntime.make` (migrates, registers an owner, recovers), then dispose. */
async function recoverWithRuntime(file: string): Promise<RecoveryOutcome> {
  // Logger.none: recovery's warnings would land on this process's stdout (the violations say it all).
  const runtime = await AgentRuntime.make({ database: file, logger: Logger.none });
  const recovered = runtime.recovered;
  await runtime.dispose();
  return { recovered, live: undefined };
}

/** What `agentloop recover` does, in this process: no owner registered, nothing but recovery written. */
function recoverWithStore(file: string): Promise<RecoveryOutcome> {
  return Effect.runPromise(
    quiet(
      Effect.flatMap(AgentRunStore, (store) =>
        Effect.all({ recovered: store.recoverInterrupted(), live: store.findLiveRuns() }),
      ).pipe(Effect.provide(Ledger.layer({ filename: file, owner: false }))),
    ),
  );
}

interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

function runProcess(args: ReadonlyArray<string>): Promise<{ exit: ChildExit; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += String(chunk);
    });
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk);
    });
    child.on("error", fail);
    child.on("close", (code, signal) => done({ exit: { code, signal }, stdout, stderr }));
  });
}

/**
 * `agentloop recover --db FILE --json`. Its stdout must be the one JSON line; anything else there
 * (a log line) is reported through `noise`, and the JSON line is still read.
 */
async function recoverWithCli(file: string, noise: (text: string) => void): Promise<RecoveryOutcome> {
  const { exit, stdout, stderr } = await runProcess([CLI, "recover", "--db", file, "--json"]);
  if (exit.code !== 0) throw new Error(`agentloop recover exited ${exit.code ?? exit.signal}: ${stderr.trim()}`);
  const lines = stdout.split("\n").filter((line) => line.trim() !== "");
  const json = lines.filter((line) => line.startsWith("{"));
  if (lines.length !== 1 || json.length !== 1) noise(stdout.trim().slice(0, 400));
  const parsed = JSON.parse(json.at(-1) ?? "null") as {
    recovered: RecoveredRun[];
    live: Array<{ runId: string; pid: number }>;
  } | null;
  if (!parsed) throw new Error(`agentloop recover --json printed no JSON: ${stdout.trim().slice(0, 400)}`);
  return { recovered: parsed.recovered, live: parsed.live };
}

// --- Children ----------------------------------------------------------------------------------

interface RunPlan {
  readonly runId: string;
  readonly cancels: boolean;
  readonly gate: boolean;
}

interface Child {
  readonly tag: string;
  readonly process: ChildProcessByStdio<Writable, Readable, Readable>;
  readonly plans: Map<string, RunPlan>;
  readonly started: Set<string>;
  readonly finished: Map<string, { state: string; reason: string }>;
  readonly held: Set<string>;
  opened: boolean;
  stderr: string;
  done: boolean;
  killed: boolean;
  /** Resolves at the child's `loaded` line (or its end). */
  readonly loaded: Promise<void>;
  readonly exited: Promise<ChildExit>;
  /** Resolves once a line satisfies the predicate (false if the child ends first). */
  waitFor(predicate: () => boolean): Promise<boolean>;
}

function spawnChild(file: string, seed: number, tag: string, hold: boolean, bundle: string | undefined): Child {
  const proc = spawn(process.execPath, [CHILD, file, String(seed), tag, ...(hold ? ["hold"] : [])], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "pipe"],
    env: bundle ? { ...process.env, KILL_FUZZ_BUNDLE: bundle } : { ...process.env, KILL_FUZZ_BUNDLE: "" },
  });
  const waiters: Array<{ predicate: () => boolean; resolve: (ok: boolean) => void }> = [];
  let ended = false;
  let markLoaded = () => {};
  const loaded = new Promise<void>((resolve) => {
    markLoaded = resolve;
  });
  const child: Child = {
    tag,
    process: proc,
    plans: new Map(),
    started: new Set(),
    finished: new Map(),
    held: new Set(),
    opened: false,
    stderr: "",
    done: false,
    killed: false,
    loaded,
    exited: new Promise((resolve) => {
      proc.on("close", (code, signal) => {
        ended = true;
        markLoaded();
        for (const waiter of waiters.splice(0)) waiter.resolve(waiter.predicate());
        resolve({ code, signal });
      });
    }),
    waitFor(predicate) {
      if (predicate()) return Promise.resolve(true);
      if (ended) return Promise.resolve(false);
      return new Promise((resolve) => waiters.push({ predicate, resolve }));
    },
  };
  const onLine = (line: string) => {
    const [word, runId, a, b, , d] = line.split(" ");
    if (word === "loaded") markLoaded();
    else if (word === "opened") child.opened = true;
    else if (word === "plan" && runId) child.plans.set(runId, { runId, cancels: b !== "-", gate: d === "gate" });
    else if (word === "started" && runId) child.started.add(runId);
    else if (word === "held" && runId) child.held.add(runId);
    else if (word === "finished" && runId && a && b) child.finished.set(runId, { state: a, reason: b });
    else if (word === "done") child.done = true;
    for (let i = waiters.length - 1; i >= 0; i--) {
      const waiter = waiters[i]!;
      if (waiter.predicate()) {
        waiters.splice(i, 1);
        waiter.resolve(true);
      }
    }
  };
  let buffer = "";
  proc.stdout.setEncoding("utf8");
  proc.stdout.on("data", (chunk: string) => {
    buffer += chunk;
    let end = buffer.indexOf("\n");
    while (end >= 0) {
      onLine(buffer.slice(0, end));
      buffer = buffer.slice(end + 1);
      end = buffer.indexOf("\n");
    }
  });
  proc.stderr.setEncoding("utf8");
  proc.stderr.on("data", (chunk: string) => {
    if (child.stderr.length < 4000) child.stderr += chunk;
  });
  proc.stdin.on("error", () => {});
  return child;
}

/** Run tags must be short and plain: they become run and session ids. */
const tagOf = (label: string) => {
  const match = /lane=(\d+) round=(\d+)/.exec(label);
  return match ? `l${match[1]}r${match[2]}` : "x";
};

/**
 * dist/index.js and dist/entries/testing.js bundled into one module under `dir` (better-sqlite3,
 * a native addon, stays external and is resolved from this package). Undefined without esbuild
 * (a devDependency of vite and tsx) or when dist/ cannot be bundled (e.g. mid-rebuild).
 */
async function makeBundle(dir: string): Promise<string | undefined> {
  const entry = join(dir, "bundle-entry.mjs");
  const outfile = join(dir, "agentloop.bundle.mjs");
  const nativeAddon = createRequire(join(ROOT, "package.json")).resolve("better-sqlite3");
  writeFileSync(
    entry,
    `export * from ${JSON.stringify(join(ROOT, "dist", "index.js"))};\n` +
      `export { fixtureTool, scriptedProvider } from ${JSON.stringify(join(ROOT, "dist", "entries", "testing.js"))};\n`,
  );
  try {
    const esbuild = await import("esbuild");
    await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      outfile,
      logLevel: "silent",
      plugins: [
        {
          name: "native-addon-external",
          setup(build) {
            build.onResolve({ filter: /^better-sqlite3$/ }, () => ({ path: nativeAddon, external: true }));
          },
        },
      ],
      banner: {
        js: `import { createRequire as __killFuzzRequire } from "node:module"; const require = __killFuzzRequire(${JSON.stringify(join(ROOT, "package.json"))});`,
      },
    });
  } catch {
    return undefined;
  }
  // The bundle must load where the children load it; otherwise they import dist/ itself.
  const probe = await runProcess([
    "--input-type=module",
    "-e",
    `const m = await import(${JSON.stringify(outfile)}); if (typeof m.AgentRuntime?.make !== "function" || typeof m.scriptedProvider !== "function") process.exit(3);`,
  ]);
  return probe.exit.code === 0 ? outfile : undefined;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// --- Rounds ------------------------------------------------------------------------------------

type RoundKind = "killAll" | "killSome" | "live";

interface Figures {
  killPoints: number;
  rounds: number;
  childProcesses: number;
  runsStarted: number;
  runsFinished: number;
  runsFinishedBeforeKill: number;
  runsRecovered: number;
  danglingCallsCancelled: number;
  liveRunsLeftAlone: number;
  liveRounds: number;
  cliRecoveries: number;
  runtimeRecoveries: number;
  integrityChecks: number;
  recoverIdempotenceChecks: number;
}

interface RoundContext {
  readonly label: string;
  readonly file: string;
  readonly random: Random;
  readonly kind: RoundKind;
  readonly childCount: number;
  readonly fresh: boolean;
  readonly maxKillDelayMs: number;
  readonly bundle: string | undefined;
  readonly figures: Figures;
  readonly violations: string[];
}

/** Plans a round: its kind, how many children, and how many of them it will kill. */
function planRound(
  random: Random,
  round: number,
  fresh: boolean,
): { kind: RoundKind; children: number; kills: number } {
  // A fresh file gets one child: concurrent first opens would race the migration, which is not what this suite probes.
  if (fresh) return { kind: "killAll", children: 1, kills: 1 };
  // Every lane, however short the suite, has a live round and a killSome round early on.
  // Most rounds kill every child (each child costs a process start; a kill point is a killed child).
  const roll = round === 2 ? 0.9 : round === 3 ? 0.75 : random.next();
  if (roll < 0.7) {
    const children = random.pick([1, 2, 2, 3, 3]);
    return { kind: "killAll", children, kills: children };
  }
  if (roll < 0.8) return { kind: "killSome", children: random.int(2, 3), kills: 1 };
  const children = random.pick([2, 3, 3]);
  return { kind: "live", children, kills: children - 1 };
}

const EXPECTED_NORMAL = new Set(["completed"]);

/** Invariant 7 for a child that ended by itself, and the states its runs reported. */
function checkChildOutcome(context: RoundContext, child: Child, exit: ChildExit) {
  const { violations, label } = context;
  const failure = /^error .*/m.exec(child.stderr)?.[0];
  if (failure) {
    violations.push(`${label} child ${child.tag}: failed (${failure.slice(0, 600)})`);
    return;
  }
  if (child.killed) {
    if (exit.signal === "SIGKILL") return;
    if (exit.code !== 0 || !child.done) {
      violations.push(
        `${label} child ${child.tag}: crashed before its SIGKILL (exit ${exit.code ?? exit.signal}): ${child.stderr.trim().slice(0, 600)}`,
      );
      return;
    }
  }
  if (!child.killed && exit.signal !== null) {
    violations.push(`${label} child ${child.tag}: ended by ${exit.signal} nobody sent`);
    return;
  }
  if (exit.code !== 0 || !child.done) {
    violations.push(
      `${label} child ${child.tag}: exited ${exit.code} without finishing its runs: ${child.stderr.trim().slice(0, 600)}`,
    );
    return;
  }
  for (const plan of child.plans.values()) {
    if (!child.finished.has(plan.runId))
      violations.push(`${label} run ${plan.runId}: child exited 0 but never finished it`);
  }
}

/** What a run reported when it finished must be what it should end with. */
function checkReportedStates(context: RoundContext, child: Child) {
  for (const [runId, outcome] of child.finished) {
    const plan = child.plans.get(runId);
    const ok = EXPECTED_NORMAL.has(outcome.state) || (plan?.cancels && outcome.state === "cancelled");
    if (!ok) {
      context.violations.push(
        `${context.label} run ${runId}: finished ${outcome.state}/${outcome.reason} in a live process (expected completed${plan?.cancels ? " or cancelled" : ""})`,
      );
    }
  }
}

async function killAfterDelay(context: RoundContext, child: Child): Promise<void> {
  const fromOpened = context.random.chance(2 / 3);
  const delay = context.random.int(0, context.maxKillDelayMs);
  await child.loaded;
  if (fromOpened) await child.waitFor(() => child.opened);
  await sleep(delay);
  if (child.process.exitCode === null && child.process.signalCode === null) {
    child.killed = true;
    child.process.kill("SIGKILL");
  }
}

async function recoverOnce(context: RoundContext, useCli: boolean): Promise<RecoveryOutcome> {
  if (useCli) {
    context.figures.cliRecoveries += 1;
    return recoverWithCli(context.file, (text) =>
      context.violations.push(
        `${context.label}: agentloop recover --json printed more than its JSON on stdout: ${text}`,
      ),
    );
  }
  context.figures.runtimeRecoveries += 1;
  return recoverWithRuntime(context.file);
}

async function runRound(context: RoundContext, seed: number): Promise<number> {
  const { random, label, file, figures, violations } = context;
  const hold = context.kind === "live";
  const children = Array.from({ length: context.childCount }, (_, i) =>
    spawnChild(file, (seed + i * 7919) >>> 0, `${tagOf(label)}c${i}`, hold && i === 0, context.bundle),
  );
  figures.childProcesses += children.length;
  // Who is killed: every child, or all but the first (killSome, live: the first survives).
  const victims = context.kind === "killAll" ? children : children.slice(1);
  const survivors = children.filter((child) => !victims.includes(child));
  if (context.kind === "killSome") {
    // One victim only; the others end by themselves.
    survivors.push(...victims.slice(1));
    victims.splice(1);
  }
  await Promise.all(victims.map((child) => killAfterDelay(context, child)));
  const victimExits = await Promise.all(victims.map((child) => child.exited));
  const killPoints = victims.filter((child) => child.killed).length;
  figures.killPoints += killPoints;

  let liveRecovery: RecoveryOutcome | undefined;
  let beforeLive: LedgerView | undefined;
  if (context.kind === "live") {
    const survivor = survivors[0]!;
    const holding = await survivor.waitFor(() => survivor.held.size > 0);
    if (!holding) {
      violations.push(`${label} child ${survivor.tag}: ended before holding its gate run`);
    } else {
      beforeLive = readLedgerFile(file);
      try {
        liveRecovery = await recoverOnce(context, random.chance(0.3));
      } catch (error) {
        violations.push(`${label}: recovery next to a live process failed: ${String(error)}`);
      }
      if (liveRecovery) {
        const survivorRuns = new Set([...survivors].flatMap((child) => [...child.plans.keys()]));
        for (const run of liveRecovery.recovered) {
          if (survivorRuns.has(run.runId)) {
            violations.push(`${label} run ${run.runId}: recovered while its process (alive) was driving it`);
          }
        }
        const after = readLedgerFile(file);
        const openNow = [...after.runs.values()].filter((run) => run.terminal_state === "running");
        figures.liveRunsLeftAlone += openNow.filter((run) => survivorRuns.has(run.run_id)).length;
        for (const runId of survivor.held) {
          if (after.runs.get(runId)?.terminal_state !== "running") {
            violations.push(
              `${label} run ${runId}: held by a live process, but ${after.runs.get(runId)?.terminal_state ?? "missing"} after recovery`,
            );
          }
        }
        if (liveRecovery.live) {
          const named = new Set(liveRecovery.live.map((run) => run.runId));
          for (const runId of survivor.held) {
            if (!named.has(runId))
              violations.push(`${label} run ${runId}: recover did not name it as left to a live process`);
          }
        }
        checkRecoveredRuns(context, beforeLive, after, liveRecovery, (runId) => survivorRuns.has(runId));
        // A dead process's run left open was just reported by checkRecoveredRuns (once is enough).
        const openBefore = (runId: string) => beforeLive?.runs.get(runId)?.terminal_state === "running";
        for (const breach of ledgerBreaks(after, (runId) => survivorRuns.has(runId) || openBefore(runId))) {
          violations.push(`${label}: ${breach} (recovered next to a live process)`);
        }
        figures.integrityChecks += 1;
      }
    }
    for (const child of survivors) child.process.stdin.end("release\n");
  }

  const survivorExits = await Promise.all(survivors.map((child) => child.exited));
  for (const child of children) {
    const exit = victims.includes(child)
      ? victimExits[victims.indexOf(child)]!
      : survivorExits[survivors.indexOf(child)]!;
    checkChildOutcome(context, child, exit);
    checkReportedStates(context, child);
    figures.runsStarted += child.started.size;
    figures.runsFinished += child.finished.size;
    if (child.killed) figures.runsFinishedBeforeKill += child.finished.size;
  }

  // Every child is dead now: snapshot, recover, check.
  const before = readLedgerFile(file, context.fresh);
  let recovery: RecoveryOutcome;
  try {
    recovery = await recoverOnce(context, random.chance(0.15));
  } catch (error) {
    violations.push(`${label}: recovery failed: ${String(error)}`);
    return killPoints;
  }
  const survivorRuns = new Set(survivors.flatMap((child) => [...child.plans.keys()]));
  for (const run of recovery.recovered) {
    if (survivorRuns.has(run.runId)) {
      violations.push(`${label} run ${run.runId}: its process ended by itself (exit 0), yet recovery closed the run`);
    }
  }
  const after = readLedgerFile(file);
  figures.integrityChecks += 1;
  checkRecoveredRuns(context, before, after, recovery, () => false);
  for (const breach of ledgerBreaks(after)) violations.push(`${label}: ${breach}`);

  // 6. A run reported finished is closed with the state it reported.
  for (const child of children) {
    for (const [runId, outcome] of child.finished) {
      const row = after.runs.get(runId);
      if (!row) violations.push(`${label} run ${runId}: reported ${outcome.state} but missing from the ledger`);
      else if (row.terminal_state !== outcome.state || row.failure_code !== outcome.reason) {
        violations.push(
          `${label} run ${runId}: reported ${outcome.state}/${outcome.reason}, ledger says ${row.terminal_state}/${row.failure_code}`,
        );
      }
    }
  }
  // Live rounds: the survivors' runs all ended with their own state, none closed by recovery.
  if (beforeLive) {
    for (const child of survivors) {
      for (const runId of child.plans.keys()) {
        const row = after.runs.get(runId);
        if (row && (row.failure_code === "interrupted" || row.failure_code === "ledger_write_failed")) {
          violations.push(
            `${label} run ${runId}: a live process's run ended ${row.terminal_state}/${row.failure_code}`,
          );
        }
      }
    }
  }

  // 5. Recovering again changes nothing.
  try {
    const again = await recoverWithStore(file);
    const afterAgain = readLedgerFile(file);
    figures.recoverIdempotenceChecks += 1;
    if (again.recovered.length > 0) {
      violations.push(`${label}: a second recovery closed ${again.recovered.map((run) => run.runId).join(", ")}`);
    }
    if (afterAgain.databaseDigest !== after.databaseDigest) {
      violations.push(`${label}: a second recovery changed the database digest`);
    }
  } catch (error) {
    violations.push(`${label}: the second recovery failed: ${String(error)}`);
  }
  return killPoints;
}

/**
 * Invariant 6 and the recovery's own account: runs closed before are unchanged; runs open before
 * (and not left to a live process) are now failed/interrupted, with a cancelled receipt for every
 * call that had none, and are exactly the runs the recovery reported.
 */
function checkRecoveredRuns(
  context: RoundContext,
  before: LedgerView,
  after: LedgerView,
  recovery: RecoveryOutcome,
  liveRun: (runId: string) => boolean,
) {
  const { label, violations, figures } = context;
  const reported = new Map(recovery.recovered.map((run) => [run.runId, run]));
  figures.runsRecovered += recovery.recovered.length;
  for (const run of recovery.recovered) figures.danglingCallsCancelled += run.cancelledCallIds.length;
  for (const [runId, run] of before.runs) {
    if (run.terminal_state !== "running") {
      if (after.runDigests.get(runId) !== before.runDigests.get(runId)) {
        violations.push(`${label} run ${runId}: closed (${run.terminal_state}) before recovery, changed by it`);
      }
      if (reported.has(runId)) violations.push(`${label} run ${runId}: already closed, yet reported recovered`);
      continue;
    }
    if (liveRun(runId)) continue;
    const now = after.runs.get(runId);
    if (now?.terminal_state === "running" && !reported.has(runId)) {
      violations.push(
        `${label} run ${runId}: its process is dead, yet recovery left it running (and did not report it)`,
      );
      continue;
    }
    if (!reported.has(runId)) violations.push(`${label} run ${runId}: open before recovery, not reported recovered`);
    if (now?.terminal_state !== "failed" || now.failure_code !== "interrupted") {
      violations.push(
        `${label} run ${runId}: open when its process died, ${now?.terminal_state}/${now?.failure_code} after recovery (expected failed/interrupted)`,
      );
      continue;
    }
    const hadReceipt = new Set((before.receipts.get(runId) ?? []).map((receipt) => receipt.call_id));
    const dangling = (before.events.get(runId) ?? [])
      .filter((event) => event.event_type === "tool_call")
      .map(callIdOf)
      .filter((callId): callId is string => callId !== undefined && !hadReceipt.has(callId));
    const receiptsNow = new Map((after.receipts.get(runId) ?? []).map((receipt) => [receipt.call_id, receipt]));
    for (const callId of dangling) {
      if (receiptsNow.get(callId)?.status !== "cancelled") {
        violations.push(`${label} run ${runId}: dangling call ${callId} has no cancelled receipt after recovery`);
      }
    }
    const claimed = [...(reported.get(runId)?.cancelledCallIds ?? [])].sort();
    if (JSON.stringify(claimed) !== JSON.stringify([...dangling].sort())) {
      violations.push(
        `${label} run ${runId}: recovery reported cancelled calls [${claimed.join(",")}], the ledger had dangling [${dangling.join(",")}]`,
      );
    }
  }
  for (const runId of reported.keys()) {
    if (before.runs.get(runId)?.terminal_state !== "running") {
      violations.push(`${label} run ${runId}: reported recovered but was not open before recovery`);
    }
  }
}

// --- The suite ---------------------------------------------------------------------------------

export async function runKillFuzz(options: KillFuzzOptions): Promise<FuzzReport> {
  const startedAt = Date.now();
  const seed = (options.seed ?? Math.floor(Math.random() * 2 ** 31)) >>> 0;
  const parallelism = Math.max(1, Math.floor(options.parallelism ?? 3));
  const filesPerLane = Math.max(1, Math.floor(options.filesPerLane ?? 2));
  const maxKillDelayMs = options.maxKillDelayMs ?? 400;
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "agentloop-kill-fuzz-"));
  const bundle = options.bundle === false ? undefined : await makeBundle(dir);
  const figures: Figures = {
    killPoints: 0,
    rounds: 0,
    childProcesses: 0,
    runsStarted: 0,
    runsFinished: 0,
    runsFinishedBeforeKill: 0,
    runsRecovered: 0,
    danglingCallsCancelled: 0,
    liveRunsLeftAlone: 0,
    liveRounds: 0,
    cliRecoveries: 0,
    runtimeRecoveries: 0,
    integrityChecks: 0,
    recoverIdempotenceChecks: 0,
  };
  const violations: string[] = [];
  let planned = 0;
  // Children that keep ending before their SIGKILL (a broken build) must not loop forever.
  const maxRounds = 4 * options.killPoints + 20;

  const lane = async (laneIndex: number) => {
    const random = makeRandom(seed ^ Math.imul(laneIndex + 1, 0x9e3779b1));
    const files = Array.from({ length: filesPerLane }, (_, i) => join(dir, `lane${laneIndex}-file${i}.db`));
    const used = new Set<string>();
    for (let round = 0; planned < options.killPoints && figures.rounds < maxRounds; round++) {
      const file = files[round % files.length]!;
      const fresh = !used.has(file);
      used.add(file);
      const plan = planRound(random, round, fresh);
      planned += plan.kills;
      figures.rounds += 1;
      if (plan.kind === "live") figures.liveRounds += 1;
      const roundSeed = random.int(0, 2 ** 31 - 1);
      const context: RoundContext = {
        label: `seed=${seed} lane=${laneIndex} round=${round} (${plan.kind}, ${plan.children} children, file ${file.slice(dir.length + 1)})`,
        file,
        random,
        kind: plan.kind,
        childCount: plan.children,
        fresh,
        maxKillDelayMs,
        bundle,
        figures,
        violations,
      };
      const killed = await runRound(context, roundSeed);
      // A child that ended before its SIGKILL was no kill point: plan another one.
      planned -= plan.kills - killed;
    }
  };
  try {
    await Promise.all(Array.from({ length: parallelism }, (_, i) => lane(i)));
  } finally {
    if (ownDir) rmSync(dir, { recursive: true, force: true });
  }
  return {
    suite: "killFuzz",
    figures: {
      seed,
      childModule: bundle ? "dist bundled" : "dist",
      ...figures,
      durationSeconds: Math.round((Date.now() - startedAt) / 100) / 10,
      violations: violations.length,
    },
    violations,
  };
}
