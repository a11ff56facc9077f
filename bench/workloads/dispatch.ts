/**
 * `dispatch.latency`: runs enqueued in this process and driven by a worker in another (a real
 * child process on the same ledger), on a SQLite file and — when a server is there — on
 * PostgreSQL. Three latencies, each over many runs, in batches of a few at a time (the worker is
 * never saturated, so what is measured is the wake-up path, not a queue):
 * - pickup: `enqueueRun` called → the worker's first model request for that run;
 * - cancel: `cancelRun` called here → the run's end (terminal row written) in the worker;
 * - approval: `approve` called here → the waiting call's tool starts in the worker;
 * - failover: the driving worker SIGKILLed → its call started again by a supervisor in a third
 *   process (2 s leases; on SQLite the supervisor's default 2 s scan, on PostgreSQL the lease's
 *   expiry job, seen within graphile-worker's default 500 ms look for due jobs).
 * Both processes stamp with `performance.timeOrigin + performance.now()` on one machine.
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { AgentRuntime } from "../../src/runtime/AgentRuntime.js";
import { dispatchAgents, THROUGHPUT_MODEL_LATENCY_MS } from "../lib/dispatchAgents.js";
import { benchPostgres } from "../lib/postgres.js";
import type { BenchOptions, BenchResult } from "../lib/types.js";
import { W10_TOOL_STEPS } from "./w10.js";

const WORKER = fileURLToPath(new URL("../dispatchWorker.ts", import.meta.url));
const BUILT_PACKAGE = fileURLToPath(new URL("../lib/builtPackage.mjs", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BATCH = 5;

const now = () => performance.timeOrigin + performance.now();

interface Percentiles {
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

function percentiles(values: ReadonlyArray<number>): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  const round = (x: number) => Math.round(x * 10) / 10;
  return { n: sorted.length, p50: round(at(0.5)), p99: round(at(0.99)), max: round(sorted.at(-1)!) };
}

/** The worker process and the instants it reports, awaited by `<what> <runId>`. */
class WorkerProcess {
  private readonly seen = new Map<string, { at: number; rest: string[] }>();
  private readonly waiting = new Map<string, (value: { at: number; rest: string[] }) => void>();
  private constructor(readonly child: ChildProcessByStdio<Writable, Readable, Readable>) {}

  static start(database: string, flags: ReadonlyArray<string> = []): Promise<WorkerProcess> {
    const child = spawn(process.execPath, ["--import", "tsx", "--import", BUILT_PACKAGE, WORKER, database, ...flags], {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const worker = new WorkerProcess(child);
    let buffer = "";
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    return new Promise((ready, fail) => {
      child.once("close", (code) => fail(new Error(`dispatch worker exited ${code}: ${stderr.trim().slice(-400)}`)));
      child.stdout.on("data", (chunk: Buffer) => {
        buffer += chunk.toString();
        let end = buffer.indexOf("\n");
        while (end >= 0) {
          const line = buffer.slice(0, end);
          buffer = buffer.slice(end + 1);
          end = buffer.indexOf("\n");
          if (line === "ready") ready(worker);
          else worker.note(line);
        }
      });
    });
  }

  private readonly lines = new Map<string, string[]>();

  /** Every run id (or `<runId>#<i>`) reported with `what`, in order, repeats included. */
  all(what: string): string[] {
    return this.lines.get(what) ?? [];
  }

  private note(line: string) {
    const [what, runId, ...rest] = line.split(" ");
    const at = Number(rest.pop());
    const key = `${what} ${runId}`;
    if (what === "executed") {
      const seen = this.lines.get(what) ?? [];
      seen.push(runId!);
      this.lines.set(what, seen);
      return;
    }
    const waiter = this.waiting.get(key);
    if (waiter) {
      this.waiting.delete(key);
      waiter({ at, rest });
    } else this.seen.set(key, { at, rest });
  }

  next(what: string, runId: string, timeoutMs = 30_000): Promise<{ at: number; rest: string[] }> {
    const key = `${what} ${runId}`;
    const known = this.seen.get(key);
    if (known) {
      this.seen.delete(key);
      return Promise.resolve(known);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "${key}" from the worker in ${timeoutMs} ms`)), timeoutMs);
      this.waiting.set(key, (value) => {
        clearTimeout(timer);
        resolve(value);
      });
    });
  }

  async stop() {
    this.child.stdin.end();
    await new Promise((resolve) => this.child.once("close", resolve));
  }
}

/** Each latency after a few unmeasured runs of its own kind (connections opened, code warm). */
const WARM_UP = 2 * BATCH;

async function inBatches(count: number, measure: () => Promise<number>): Promise<number[]> {
  for (let done = 0; done < WARM_UP; done += BATCH) await Promise.all(Array.from({ length: BATCH }, measure));
  const values: number[] = [];
  while (values.length < count) {
    const batch = Math.min(BATCH, count - values.length);
    values.push(...(await Promise.all(Array.from({ length: batch }, measure))));
  }
  return values;
}

async function measureOn(database: string, samples: number) {
  const runtime = await AgentRuntime.make({ database, agents: dispatchAgents(() => {}) });
  const worker = await WorkerProcess.start(database);
  try {
    const pickup = await inBatches(samples, async () => {
      const t0 = now();
      const { runId } = await runtime.enqueueRun({ agent: "bench", sessionId: "pickup", input: "pickup" });
      return (await worker.next("sampled", runId)).at - t0;
    });
    const cancel = await inBatches(samples, async () => {
      const { runId } = await runtime.enqueueRun({ agent: "bench", sessionId: "cancel", input: "cancel" });
      await worker.next("waiting", runId);
      const t0 = now();
      await runtime.cancelRun(runId);
      return (await worker.next("ended", runId)).at - t0;
    });
    const approval = await inBatches(samples, async () => {
      const { runId } = await runtime.enqueueRun({ agent: "bench", sessionId: "approve", input: "approve" });
      const asked = await worker.next("asked", runId);
      const t0 = now();
      await runtime.approve(runId, asked.rest[0]!);
      return (await worker.next("started", runId)).at - t0;
    });
    return { pickupMs: percentiles(pickup), cancelMs: percentiles(cancel), approvalMs: percentiles(approval) };
  } finally {
    await worker.stop();
    await runtime.dispose();
  }
}

const FAILOVER_LEASE_MS = 2_000;

/**
 * failover: the worker driving a run (in a tool call) is SIGKILLed; a supervising runtime in a
 * third process takes the run over and runs the call again (it observes): measured from the kill
 * to that call's start in the successor. A fresh worker per sample; the run is cancelled after.
 */
async function measureFailover(database: string, samples: number) {
  const runtime = await AgentRuntime.make({ database, agents: dispatchAgents(() => {}) });
  const successor = await WorkerProcess.start(database, ["--supervise", "--lease-ms", String(FAILOVER_LEASE_MS)]);
  try {
    const values: number[] = [];
    for (let sample = 0; sample < samples; sample++) {
      const driver = await WorkerProcess.start(database, ["--lease-ms", String(FAILOVER_LEASE_MS)]);
      const { runId } = await runtime.enqueueRun({ agent: "bench", sessionId: "failover", input: "cancel" });
      await driver.next("waiting", runId);
      const killedAt = now();
      driver.child.kill("SIGKILL");
      const taken = await successor.next("waiting", runId, 60_000);
      values.push(taken.at - killedAt);
      await runtime.cancelRun(runId);
      await successor.next("ended", runId);
    }
    return percentiles(values);
  } finally {
    await successor.stop();
    await runtime.dispose();
  }
}

/** Runs a worker drives at once in `dispatch.throughput`: model latency, not CPU, should bound a worker. */
const THROUGHPUT_CONCURRENCY = 5;

/**
 * `dispatch.throughput`: `runs` W10 runs (50 ms a model step) enqueued, then driven by `workers`
 * worker processes; runs/s from the first worker's start to the last run's end. Every tool
 * execution is counted in the workers' output (outside the ledger): each run's nine lookups once.
 * The workers start together and the clock runs from the first one ready.
 */
async function measureThroughput(database: string, runs: number, workers: number) {
  const runtime = await AgentRuntime.make({ database, agents: dispatchAgents(() => {}) });
  const started: WorkerProcess[] = [];
  try {
    const runIds: string[] = [];
    for (let batch = 0; batch < runs; batch += 50) {
      const ids = await Promise.all(
        Array.from({ length: Math.min(50, runs - batch) }, () =>
          runtime.enqueueRun({ agent: "w10", sessionId: "throughput", input: "Look up items 1 to 9, then summarise." }),
        ),
      );
      runIds.push(...ids.map((queued) => queued.runId));
    }
    // Started together; the clock runs from the first one ready (a process's start-up is not measured).
    const readyAt: number[] = [];
    started.push(
      ...(await Promise.all(
        Array.from({ length: workers }, () =>
          WorkerProcess.start(database, ["--concurrency", String(THROUGHPUT_CONCURRENCY)]).then((worker) => {
            readyAt.push(now());
            return worker;
          }),
        ),
      )),
    );
    const t0 = Math.min(...readyAt);
    const ended = await Promise.all(
      runIds.map((runId) => Promise.race(started.map((worker) => worker.next("ended", runId, 600_000)))),
    );
    const wallMs = Math.max(...ended.map((end) => end.at)) - t0;
    const executions = started.flatMap((worker) => worker.all("executed"));
    const distinct = new Set(executions);
    const records = await Promise.all(runIds.map((runId) => runtime.ledger.getRun(runId)));
    return {
      workers,
      runs,
      wallMs: Math.round(wallMs),
      runsPerSec: Math.round((runs / wallMs) * 1000 * 10) / 10,
      completed: records.filter((record) => record?.terminalState === "completed").length,
      executions: executions.length,
      duplicatedExecutions: executions.length - distinct.size,
      missingExecutions: runs * W10_TOOL_STEPS - distinct.size,
    };
  } finally {
    for (const worker of started) await worker.stop();
    await runtime.dispose();
  }
}

export async function benchDispatchThroughput(options: BenchOptions): Promise<BenchResult> {
  const runs = options.quick ? 60 : 1_000;
  const shapes = [];
  for (const workers of [1, 2, 4]) {
    // A fresh database for each shape.
    const postgres = await benchPostgres();
    if ("skipped" in postgres) return { id: "dispatch.throughput", skipped: postgres.skipped };
    try {
      shapes.push(await measureThroughput(postgres.database, runs, workers));
    } finally {
      await postgres.close();
    }
  }
  return {
    id: "dispatch.throughput",
    what: `${runs} W10 runs (${THROUGHPUT_MODEL_LATENCY_MS} ms a model step) enqueued on PostgreSQL, then driven by 1, 2 and 4 worker processes of concurrency ${THROUGHPUT_CONCURRENCY}`,
    shapes,
  };
}

export async function benchDispatch(options: BenchOptions): Promise<BenchResult> {
  const samples = options.quick ? 10 : 200;
  const failoverSamples = options.quick ? 3 : 30;
  const sqlite = {
    ...(await measureOn(join(options.dir, "dispatch.db"), samples)),
    failoverMs: await measureFailover(join(options.dir, "failover.db"), failoverSamples),
  };
  const postgres = await benchPostgres();
  let onPostgres: (Awaited<ReturnType<typeof measureOn>> & { failoverMs: Percentiles }) | { skipped: string };
  if ("skipped" in postgres) onPostgres = { skipped: postgres.skipped };
  else {
    try {
      onPostgres = {
        ...(await measureOn(postgres.database, samples)),
        failoverMs: await measureFailover(postgres.database, failoverSamples),
      };
    } finally {
      await postgres.close();
    }
  }
  return {
    id: "dispatch.latency",
    what: `enqueue → first model request, cancel → terminal row, approve → tool start, a worker in another process; ${samples} runs each (after ${WARM_UP} unmeasured), ${BATCH} at a time`,
    sqlite,
    postgres: onPostgres,
  };
}
