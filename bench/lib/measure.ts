/** Timing helpers: warm-up, repetitions, min / median, peak RSS of the current process. */
import { performance } from "node:perf_hooks";

export interface Stat {
  readonly min: number;
  readonly median: number;
  readonly max: number;
}

export function stat(values: ReadonlyArray<number>): Stat {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return { min: Number.NaN, median: Number.NaN, max: Number.NaN };
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { min: sorted[0]!, median, max: sorted[sorted.length - 1]! };
}

/** Peak resident set size of this process so far, in MiB (getrusage maxrss). */
export function peakRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

export const currentRssMiB = (): number => process.memoryUsage.rss() / 2 ** 20;

export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
}

export interface LoopPlan {
  /** Runs before measuring (JIT, caches, SQLite pages). */
  readonly warmupRuns: number;
  /** Runs per repetition. */
  readonly runs: number;
  readonly reps: number;
  /** Model steps per run (10 for W10). */
  readonly stepsPerRun: number;
}

export interface LoopMeasurement {
  readonly usPerStep: Stat;
  readonly runsPerSec: Stat;
  readonly repMs: ReadonlyArray<number>;
  readonly runs: number;
  readonly reps: number;
  readonly warmupRuns: number;
}

/**
 * Runs `runOnce` sequentially (each run awaited before the next): `warmupRuns` first, then `reps`
 * repetitions of `runs` runs, each timed as a whole.
 */
export async function measureSequential(
  plan: LoopPlan,
  runOnce: (label: string) => Promise<void>,
): Promise<LoopMeasurement> {
  for (let i = 0; i < plan.warmupRuns; i++) await runOnce(`w${i}`);
  const repMs: number[] = [];
  for (let rep = 0; rep < plan.reps; rep++) {
    collectGarbage();
    const started = performance.now();
    for (let i = 0; i < plan.runs; i++) await runOnce(`r${rep}-${i}`);
    repMs.push(performance.now() - started);
  }
  return {
    usPerStep: stat(repMs.map((ms) => (ms * 1000) / (plan.runs * plan.stepsPerRun))),
    runsPerSec: stat(repMs.map((ms) => plan.runs / (ms / 1000))),
    repMs,
    runs: plan.runs,
    reps: plan.reps,
    warmupRuns: plan.warmupRuns,
  };
}

/** The common result fields of a sequential loop measurement. */
export function loopFields(measured: LoopMeasurement) {
  return {
    usPerStep: { min: measured.usPerStep.min, median: measured.usPerStep.median },
    runsPerSec: { min: measured.runsPerSec.min, median: measured.runsPerSec.median, max: measured.runsPerSec.max },
    peakRssMiB: peakRssMiB(),
    runs: measured.runs,
    reps: measured.reps,
    warmupRuns: measured.warmupRuns,
    repMs: measured.repMs.map((ms) => Math.round(ms)),
  };
}
