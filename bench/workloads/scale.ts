/**
 * `scale.concurrent`: 1,000 W10 runs in flight at once on one runtime (one ledger file), 5 ms of
 * scripted model latency per step. Wall time, runs/s, peak RSS, RSS per in-flight run; every run
 * must end `completed` and the ledger must hold 21 rows per run.
 */
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { collectGarbage, currentRssMiB, peakRssMiB, stat } from "../lib/measure.js";
import { countEvents } from "../lib/rawLedger.js";
import type { BenchOptions, BenchResult } from "../lib/types.js";
import { type AgentloopW10, makeAgentloopW10 } from "./agentloop.js";
import { W10_ROWS_PER_RUN, W10_STEPS } from "./w10.js";

export const SCALE_LATENCY_MS = 5;

interface Wave {
  readonly wallMs: number;
  readonly cpuUs: number;
  readonly peakRssMiB: number;
  readonly peakHeapMiB: number;
  readonly maxInFlight: number;
  /** After a full collection at the first run's end (the others still in flight, at their last step). */
  readonly retained: { readonly inFlight: number; readonly rssMiB: number; readonly heapMiB: number } | null;
}

/** Starts `count` runs at once and waits for all; samples RSS and heap while they are in flight. */
async function wave(bench: AgentloopW10, prefix: string, count: number): Promise<Wave> {
  let inFlight = 0;
  let maxInFlight = 0;
  let peakRss = currentRssMiB();
  let peakHeap = process.memoryUsage().heapUsed / 2 ** 20;
  const sample = () => {
    const memory = process.memoryUsage();
    peakRss = Math.max(peakRss, memory.rss / 2 ** 20);
    peakHeap = Math.max(peakHeap, memory.heapUsed / 2 ** 20);
  };
  const sampler = setInterval(sample, 10);
  // Peak RSS also counts garbage V8 has not collected yet (the wave is CPU-bound, so the heap
  // grows ahead of collection); what the runs themselves hold is measured after a full GC while
  // they are still in flight — at the first run's end, when every run carries its longest history.
  let retained: Wave["retained"] = null;
  const measureRetained = () => {
    if (retained || !(globalThis as { gc?: () => void }).gc) return;
    sample();
    collectGarbage();
    const memory = process.memoryUsage();
    retained = { inFlight, rssMiB: memory.rss / 2 ** 20, heapMiB: memory.heapUsed / 2 ** 20 };
  };
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  try {
    const runs: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      runs.push(
        bench.runOnce(`${prefix}${i}`).finally(() => {
          inFlight -= 1;
          measureRetained();
        }),
      );
    }
    await Promise.all(runs);
  } finally {
    clearInterval(sampler);
  }
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  sample();
  return { wallMs, cpuUs: cpu.user + cpu.system, peakRssMiB: peakRss, peakHeapMiB: peakHeap, maxInFlight, retained };
}

export async function benchScale(options: BenchOptions): Promise<BenchResult> {
  const concurrency = options.quick ? 20 : 1_000;
  const reps = 3;
  const filename = join(options.dir, "scale.db");
  const bench = await makeAgentloopW10({ database: filename, latencyMs: SCALE_LATENCY_MS });
  try {
    await wave(bench, "warm-", options.quick ? 2 : 50);
    const waves: Array<Wave & { readonly baselineRssMiB: number; readonly baselineHeapMiB: number }> = [];
    for (let rep = 0; rep < reps; rep++) {
      collectGarbage();
      const baselineRssMiB = currentRssMiB();
      const baselineHeapMiB = process.memoryUsage().heapUsed / 2 ** 20;
      const result = await options.measured(() => wave(bench, `scale-r${rep}-`, concurrency));
      // Every run ended `completed` (runOnce rejects otherwise); now the rows.
      const rows = countEvents(filename, `scale-r${rep}-`);
      if (rows !== concurrency * W10_ROWS_PER_RUN) {
        throw new Error(`scale.concurrent rep ${rep}: ${rows} ledger rows, expected ${concurrency * W10_ROWS_PER_RUN}`);
      }
      waves.push({ ...result, baselineRssMiB, baselineHeapMiB });
    }
    const wallMs = stat(waves.map((w) => w.wallMs));
    const runsPerSec = stat(waves.map((w) => concurrency / (w.wallMs / 1000)));
    const usPerStep = stat(waves.map((w) => (w.wallMs * 1000) / (concurrency * W10_STEPS)));
    const cpuUsPerStep = stat(waves.map((w) => w.cpuUs / (concurrency * W10_STEPS)));
    const rssPerRun = stat(waves.map((w) => ((w.peakRssMiB - w.baselineRssMiB) * 1024) / concurrency));
    const heapPerRun = stat(waves.map((w) => ((w.peakHeapMiB - w.baselineHeapMiB) * 1024) / concurrency));
    const measuredRetained = waves.flatMap((w) => (w.retained ? [{ ...w.retained, w }] : []));
    const retainedRss = stat(measuredRetained.map((r) => ((r.rssMiB - r.w.baselineRssMiB) * 1024) / r.inFlight));
    const retainedHeap = stat(measuredRetained.map((r) => ((r.heapMiB - r.w.baselineHeapMiB) * 1024) / r.inFlight));
    return {
      id: "scale.concurrent",
      what: `${concurrency} W10 runs started at once on one AgentRuntime (ledger file), ${SCALE_LATENCY_MS} ms model latency per step; usPerStep = wave wall time / (runs × 10)`,
      usPerStep: { min: usPerStep.min, median: usPerStep.median },
      cpuUsPerStep: { min: cpuUsPerStep.min, median: cpuUsPerStep.median },
      runsPerSec: { min: runsPerSec.min, median: runsPerSec.median, max: runsPerSec.max },
      peakRssMiB: peakRssMiB(),
      runs: concurrency,
      reps,
      warmupRuns: options.quick ? 2 : 50,
      concurrency,
      maxInFlight: Math.max(...waves.map((w) => w.maxInFlight)),
      wallMs: { min: wallMs.min, median: wallMs.median },
      /** (peak RSS during a wave − RSS before it) / runs in flight; `max` is the first (coldest) wave. */
      rssPerInFlightRunKiB: { min: rssPerRun.min, median: rssPerRun.median, max: rssPerRun.max },
      heapPerInFlightRunKiB: { min: heapPerRun.min, median: heapPerRun.median, max: heapPerRun.max },
      /** After a full GC with (almost) every run in flight: memory the runs hold, not garbage. */
      retainedPerInFlightRunKiB:
        measuredRetained.length > 0
          ? {
              rss: { median: retainedRss.median, max: retainedRss.max },
              heap: { median: retainedHeap.median, max: retainedHeap.max },
              inFlight: Math.min(...measuredRetained.map((r) => r.inFlight)),
            }
          : null,
      completed: concurrency * reps,
      ledgerRowsPerWave: concurrency * W10_ROWS_PER_RUN,
    };
  } finally {
    await bench.dispose();
  }
}
