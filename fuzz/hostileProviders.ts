/**
 * The hostile-providers reliability suite: the real `openai` and `@anthropic-ai/sdk` clients,
 * through agentloop's own providers, talk to a local HTTP server that answers with hostile
 * responses (fuzz/hostile/catalogue.ts); a real AgentRuntime on a real SQLite file runs one run
 * per case, with small deadlines (fuzz/hostile/timing.ts). The runtime lives in a child process
 * (fuzz/hostile/runtimeProcess.ts), so a run that blocks its event loop is still seen as a hang
 * and cut: the child is killed and a new one (whose start-up recovery closes the cut runs) takes
 * the remaining cases. Per case: no crash (unhandled rejection / uncaught exception / the process
 * dying), a terminal state with a reason code, a wall time under the configured deadlines plus a
 * margin, the ledger invariants of the run, and the case's expectation (a broken answer never
 * ends `completed`). After all cases — with the runtime open (the `-wal` file exists) and again
 * after it closed — every text column of every table, the raw bytes of the `.db` and `-wal`
 * files and everything the runtime process wrote to stdout/stderr are searched for every planted
 * secret (and its first half): no hit is allowed.
 */
import { type ChildProcess, fork } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { buildCatalogue, type HostileCase } from "./hostile/catalogue.js";
import type { CaseOutcome, FromRuntime, ToRuntime } from "./hostile/runtimeProcess.js";
import { hostileRunId } from "./hostile/runtimeProcess.js";
import type { PlantedSecret } from "./hostile/secrets.js";
import { type HostileReply, startHostileServer } from "./hostile/server.js";
import { RETRY, RUN_DEADLINE_MS, TIMING } from "./hostile/timing.js";
import type { FuzzReport } from "./report.js";

export { RETRY, RUN_DEADLINE_MS, TIMING };

export const SUITE = "hostile-providers";

/**
 * A case still without an outcome this long after it was sent is a hang no timer inside the
 * runtime process could cut (its event loop is blocked): the process is killed.
 */
export const STALL_MS = RUN_DEADLINE_MS + 15_000;

const REPO = fileURLToPath(new URL("..", import.meta.url));
const RUNTIME_ENTRY = fileURLToPath(new URL("./hostile/runtimeProcess.ts", import.meta.url));

export interface HostileOptions {
  /** Which cases run (by id, `<api>/<stream|whole>/<name>`); default all. */
  readonly filter?: (caseId: string) => boolean;
  /** Where the SQLite file goes (default: a fresh temp directory, removed afterwards). */
  readonly dir?: string;
  /** Cases run at once (default 8); heavy cases (megabytes, deep nesting) always run alone. */
  readonly concurrency?: number;
}

/** Where one planted secret (or its first half) was found. */
export interface SecretHit {
  readonly secret: PlantedSecret;
  /** `whole` or `half` (the first half only: a partial leak). */
  readonly extent: "whole" | "half";
  /** `table.column`, `.db file` or `-wal file`. */
  readonly place: string;
}

export interface SecretScan {
  readonly tables: number;
  readonly rowsScanned: number;
  /** Hits in table columns (one per secret and column). */
  readonly tableHits: ReadonlyArray<SecretHit>;
  readonly dbFileHits: ReadonlyArray<SecretHit>;
  readonly walFileHits: ReadonlyArray<SecretHit>;
  readonly walBytes: number;
  /** How many of the canaries (strings known to be stored, e.g. run ids) the table scan saw. */
  readonly canariesFound: number;
}

const extentIn = (haystack: { includes(value: string): boolean }, secret: PlantedSecret) =>
  haystack.includes(secret.needle) ? "whole" : haystack.includes(secret.fragment) ? "half" : undefined;

/** Searches every text (and blob) column of every table, and the raw `.db` / `-wal` bytes. */
export function scanForSecrets(
  file: string,
  secrets: ReadonlyArray<PlantedSecret>,
  canaries: ReadonlyArray<string>,
): SecretScan {
  const tableHits = new Map<string, SecretHit>();
  const foundCanaries = new Set<string>();
  let rowsScanned = 0;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  let tables: string[] = [];
  try {
    tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map(
      (row) => row.name,
    );
    for (const table of tables) {
      const statement = db.prepare(`SELECT * FROM "${table.replace(/"/g, '""')}"`).raw(true);
      const columns = statement.columns().map((column) => column.name);
      for (const row of statement.iterate() as Iterable<unknown[]>) {
        rowsScanned += 1;
        for (const [index, value] of row.entries()) {
          const text =
            typeof value === "string" ? value : Buffer.isBuffer(value) ? value.toString("latin1") : undefined;
          if (!text) continue;
          for (const canary of canaries) if (text.includes(canary)) foundCanaries.add(canary);
          for (const secret of secrets) {
            const extent = extentIn(text, secret);
            if (!extent) continue;
            const place = `${table}.${columns[index] ?? index}`;
            const key = `${secret.needle}\u0000${place}`;
            if (!tableHits.has(key) || extent === "whole") tableHits.set(key, { secret, extent, place });
          }
        }
      }
    }
  } finally {
    db.close();
  }
  const bytesHits = (path: string, place: string) => {
    if (!existsSync(path)) return { hits: [] as SecretHit[], bytes: 0 };
    const bytes = readFileSync(path);
    const hits: SecretHit[] = [];
    for (const secret of secrets) {
      const extent = extentIn(bytes, secret);
      if (extent) hits.push({ secret, extent, place });
    }
    return { hits, bytes: bytes.length };
  };
  const dbFile = bytesHits(file, ".db file");
  const wal = bytesHits(`${file}-wal`, "-wal file");
  return {
    tables: tables.length,
    rowsScanned,
    tableHits: [...tableHits.values()],
    dbFileHits: dbFile.hits,
    walFileHits: wal.hits,
    walBytes: wal.bytes,
    canariesFound: foundCanaries.size,
  };
}

/** One violation per leaked secret, naming every place (and scan) it was found in. */
function leakViolations(scans: Readonly<Record<string, SecretScan>>): string[] {
  const bySecret = new Map<PlantedSecret, { extent: "whole" | "half"; places: Set<string> }>();
  for (const [when, scan] of Object.entries(scans)) {
    for (const hit of [...scan.tableHits, ...scan.dbFileHits, ...scan.walFileHits]) {
      const entry = bySecret.get(hit.secret) ?? { extent: hit.extent, places: new Set<string>() };
      if (hit.extent === "whole") entry.extent = "whole";
      entry.places.add(`${hit.place} (${when})`);
      bySecret.set(hit.secret, entry);
    }
  }
  return [...bySecret.entries()].map(
    ([secret, { extent, places }]) =>
      `${secret.caseId}: ${extent === "whole" ? "secret" : "the first half of a secret"} stored: its ${secret.shape} in ${[...places].join(", ")}`,
  );
}

/** Distinct secrets among hits. */
const distinct = (...lists: ReadonlyArray<ReadonlyArray<SecretHit>>) =>
  new Set(lists.flatMap((hits) => hits.map((hit) => hit.secret))).size;

const bump = (record: Record<string, number>, key: string) => {
  record[key] = (record[key] ?? 0) + 1;
};

type Event =
  | { readonly kind: "message"; readonly child: ChildProcess; readonly message: FromRuntime }
  | {
      readonly kind: "exit";
      readonly child: ChildProcess;
      readonly code: number | null;
      readonly signal: string | null;
    };

/** Events from runtime processes, awaited one at a time (or until a timeout: the watchdog's tick). */
class EventQueue {
  private readonly queue: Event[] = [];
  private wake: (() => void) | undefined;

  push(event: Event): void {
    this.queue.push(event);
    this.wake?.();
  }

  async next(timeoutMs: number): Promise<Event | undefined> {
    if (this.queue.length === 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
    return this.queue.shift();
  }
}

interface Finished {
  readonly hostile: HostileCase;
  readonly outcome: CaseOutcome;
  readonly requests: number;
}

export async function runHostileProviders(options: HostileOptions = {}): Promise<FuzzReport> {
  const suiteStarted = performance.now();
  const all = buildCatalogue().filter((hostile) => options.filter?.(hostile.id) ?? true);
  // Light cases first (in parallel), then the heavy ones one at a time.
  const ordered = [...all.filter((hostile) => !hostile.heavy), ...all.filter((hostile) => hostile.heavy)];
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "agentloop-hostile-"));
  const file = join(dir, `hostile-${process.pid}-${Date.now()}.db`);
  const violations: string[] = [];
  const crashes: string[] = [];
  const output: string[] = [];
  const secrets: PlantedSecret[] = [];
  const results = new Map<number, Finished>();
  const events = new EventQueue();
  const server = await startHostileServer({ hangLimitMs: STALL_MS + 15_000 });

  /** Replies and routes per case index (a case cut by another's hang is sent again on a fresh route). */
  const rendered = new Map<number, ReadonlyArray<HostileReply>>();
  const prefixes = new Map<number, string[]>();
  const inFlight = new Map<number, { readonly started: number }>();
  const pending = ordered.map((_, index) => index);
  let spawned = 0;
  const killed = new WeakSet<ChildProcess>();

  const spawnRuntime = async (): Promise<ChildProcess> => {
    spawned += 1;
    const child = fork(RUNTIME_ENTRY, [file], {
      cwd: REPO,
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    });
    child.stdout?.on("data", (chunk: Buffer) => output.push(chunk.toString("utf8")));
    child.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString("utf8")));
    child.on("message", (message: FromRuntime) => events.push({ kind: "message", child, message }));
    child.on("exit", (code, signal) => events.push({ kind: "exit", child, code, signal }));
    for (;;) {
      const event = await events.next(60_000);
      if (!event) throw new Error("the runtime process did not start within 60 s");
      if (event.kind === "message" && event.message.type === "crash") crashes.push(event.message.message);
      // Events of an earlier (killed) process are not this one's.
      if (event.child !== child) continue;
      if (event.kind === "message" && event.message.type === "ready") return child;
      if (event.kind === "exit") throw new Error(`the runtime process exited at start (${event.code ?? event.signal})`);
    }
  };

  const namesOf = (indices: Iterable<number>) => [...indices].map((index) => ordered[index]!.id).join(", ");
  const settle = (index: number, outcome: CaseOutcome) => {
    inFlight.delete(index);
    rendered.delete(index);
    const requests = (prefixes.get(index) ?? []).reduce((sum, prefix) => sum + server.requestsOf(prefix), 0);
    results.set(index, { hostile: ordered[index]!, outcome, requests });
  };
  const lost = (index: number, why: string, hang: boolean): CaseOutcome => ({
    index,
    runId: hostileRunId(index),
    wallMs: Math.round(performance.now() - (inFlight.get(index)?.started ?? performance.now())),
    hang,
    redacted: false,
    violations: [`${ordered[index]!.id}: ${why}`],
  });

  let child: ChildProcess | undefined;
  let openScan: SecretScan | undefined;
  let closedScan: SecretScan | undefined;
  try {
    child = await spawnRuntime();
    while (pending.length > 0 || inFlight.size > 0) {
      // Dispatch: heavy cases alone, light ones up to the concurrency.
      while (pending.length > 0) {
        const index = pending[0]!;
        const hostile = ordered[index]!;
        const busyWithHeavy = [...inFlight.keys()].some((running) => ordered[running]!.heavy);
        if (busyWithHeavy || (hostile.heavy ? inFlight.size > 0 : inFlight.size >= concurrency)) break;
        pending.shift();
        let replies = rendered.get(index);
        if (!replies) {
          const fresh = hostile.render();
          secrets.push(...fresh.secrets);
          replies = fresh.replies;
          rendered.set(index, replies);
        }
        const prefix = server.route(replies);
        prefixes.set(index, [...(prefixes.get(index) ?? []), prefix]);
        inFlight.set(index, { started: performance.now() });
        const { id, api, stream, expect, contract, input } = hostile;
        const message: ToRuntime = {
          type: "run",
          index,
          spec: { id, api, stream, expect, input, ...(contract ? { contract } : {}) },
          origin: server.origin,
          prefix,
        };
        child.send(message);
      }

      const event = await events.next(500);
      if (event?.kind === "message" && event.child === child) {
        if (event.message.type === "result") settle(event.message.outcome.index, event.message.outcome);
        if (event.message.type === "crash") crashes.push(event.message.message);
      } else if (event?.kind === "message" && event.message.type === "crash") {
        crashes.push(event.message.message);
      } else if (event?.kind === "exit" && event.child === child && !killed.has(child)) {
        crashes.push(`the runtime process exited (${event.code ?? event.signal}) during [${namesOf(inFlight.keys())}]`);
        for (const index of [...inFlight.keys()])
          settle(index, lost(index, "the runtime process died during the run", false));
        if (pending.length > 0) child = await spawnRuntime();
      }

      // Watchdog: a case past STALL_MS means the runtime process stopped answering.
      const now = performance.now();
      const stalled = [...inFlight.entries()]
        .filter(([, { started }]) => now - started > STALL_MS)
        .map(([index]) => index);
      if (stalled.length > 0) {
        killed.add(child);
        child.kill("SIGKILL");
        for (const index of stalled) {
          settle(
            index,
            lost(
              index,
              `hang: no outcome within ${STALL_MS} ms; the runtime process stopped answering (its event loop blocked) and was killed`,
              true,
            ),
          );
        }
        // Cases cut only because the process was killed run again on a new one.
        pending.unshift(...inFlight.keys());
        inFlight.clear();
        child = await spawnRuntime();
      }
    }

    const canaries = [...results.values()].map(({ outcome }) => outcome.runId);
    openScan = scanForSecrets(file, secrets, canaries);
    if (openScan.walBytes === 0) violations.push("scan: the -wal file was empty or missing while the runtime was open");
    const finishing = child;
    child = undefined;
    finishing.send({ type: "finish" } satisfies ToRuntime);
    for (;;) {
      const event = await events.next(20_000);
      if (!event) {
        violations.push("the runtime process did not dispose within 20 s");
        killed.add(finishing);
        finishing.kill("SIGKILL");
        break;
      }
      if (event.kind === "message" && event.message.type === "crash") crashes.push(event.message.message);
      if (event.child === finishing && (event.kind === "exit" || event.message.type === "disposed")) break;
    }
    closedScan = scanForSecrets(file, secrets, canaries);
    for (const scan of [openScan, closedScan]) {
      if (scan.canariesFound !== canaries.length) {
        violations.push(
          `scan: only ${scan.canariesFound} of ${canaries.length} run ids found in the tables (the scan misses data)`,
        );
      }
    }
  } finally {
    if (child) {
      killed.add(child);
      child.kill("SIGKILL");
    }
    await server.close();
    if (ownDir) rmSync(dir, { recursive: true, force: true });
  }

  const outcomes = [...results.values()].sort((a, b) => a.outcome.index - b.outcome.index);
  for (const { outcome } of outcomes) violations.push(...outcome.violations);
  violations.push(...crashes.map((crash) => `crash: ${crash}`));
  const scans = { open: openScan!, closed: closedScan! };
  violations.push(...leakViolations(scans));

  const consoleText = output.join("");
  const consoleHits = secrets.filter((secret) => consoleText.includes(secret.fragment));
  for (const secret of consoleHits) {
    violations.push(`${secret.caseId}: secret written to the process's stdout/stderr: its ${secret.shape}`);
  }

  const figures: Record<string, number | string> = {
    cases: outcomes.length,
  };
  const perApi: Record<string, number> = {};
  const states: Record<string, number> = {};
  const reasons: Record<string, number> = {};
  let streamed = 0;
  let maxWall = 0;
  let maxWallCase = "";
  for (const { hostile, outcome } of outcomes) {
    bump(perApi, hostile.api);
    if (hostile.stream) streamed += 1;
    if (outcome.wallMs > maxWall) {
      maxWall = outcome.wallMs;
      maxWallCase = hostile.id;
    }
    bump(states, outcome.terminalState ?? (outcome.hang ? "hang" : "no_result"));
    bump(reasons, outcome.terminalReason ?? "none");
  }
  for (const [api, count] of Object.entries(perApi)) figures[`cases.${api}`] = count;
  figures.streamed = streamed;
  figures.whole = outcomes.length - streamed;
  for (const [state, count] of Object.entries(states).sort()) figures[`terminal.${state}`] = count;
  for (const [reason, count] of Object.entries(reasons).sort()) figures[`reason.${reason}`] = count;
  Object.assign(figures, {
    providerRequests: outcomes.reduce((sum, { requests }) => sum + requests, 0),
    maxRunWallMs: maxWall,
    maxRunWallCase: maxWallCase,
    runDeadlineMs: RUN_DEADLINE_MS,
    providerIdleMs: TIMING.idleMs,
    providerDeadlineMs: TIMING.deadlineMs,
    retryAfterCapMs: RETRY.maxRetryAfterMs ?? 0,
    secretsPlanted: secrets.length,
    runsWithRedactions: outcomes.filter(({ outcome }) => outcome.redacted).length,
    tablesScanned: scans.open.tables,
    rowsScanned: scans.open.rowsScanned,
    walBytesWhileOpen: scans.open.walBytes,
    secretHitsTables: distinct(scans.open.tableHits, scans.closed.tableHits),
    secretHalfHits: distinct(
      ...[scans.open, scans.closed].map((scan) =>
        [...scan.tableHits, ...scan.dbFileHits, ...scan.walFileHits].filter((hit) => hit.extent === "half"),
      ),
    ),
    secretHitsDbFile: distinct(scans.open.dbFileHits, scans.closed.dbFileHits),
    secretHitsWalFile: distinct(scans.open.walFileHits, scans.closed.walFileHits),
    outputBytes: consoleText.length,
    secretHitsConsole: consoleHits.length,
    crashes: crashes.length,
    hangs: outcomes.filter(({ outcome }) => outcome.hang).length,
    runtimeProcesses: spawned,
    suiteWallMs: Math.round(performance.now() - suiteStarted),
  });
  figures.violations = violations.length;
  return { suite: SUITE, figures, violations };
}
