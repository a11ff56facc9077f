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

/** A full collection between repetitions (with --expose-gc); skipped under --cpu-prof, where it would swamp the profile. */
export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc && !process.env.AGENTLOOP_BENCH_PROFILE_DIR) {
    gc();
    gc();
  }
}

export interface LoopPlan {
  /** Runs before measuring (JIT, caches, SQLite pages); also times one run to size the repetitions. */
  readonly warmupRuns: number;
  /**
   * … and warm-up continues until this much time has passed: the same for every implementation,
   * so each is measured at its JIT's steady state, not just after a fixed number of runs.
   */
  readonly warmupMs: number;
  /** Each repetition runs about this long (runs = targetRepMs / a warm-up run's time) … */
  readonly targetRepMs: number;
  /** … but at least / at most this many runs. */
  readonly minRuns: number;
  readonly maxRuns: number;
  readonly reps: number;
  /** Model steps per run (10 for W10). */
  readonly stepsPerRun: number;
}

export interface LoopMeasurement {
  readonly usPerStep: Stat;
  /** Process CPU time (user + system, all threads) per step. */
  readonly cpuUsPerStep: Stat;
  readonly runsPerSec: Stat;
  readonly repMs: ReadonlyArray<number>;
  readonly runs: number;
  readonly reps: number;
  readonly warmupRuns: number;
}

/**
 * Runs `runOnce` sequentially (each run awaited before the next): `warmupRuns` first, then `reps`
 * repetitions of the same number of runs, each timed as a whole (wall and CPU time).
 */
export async function measureSequential(
  plan: LoopPlan,
  runOnce: (label: string) => Promise<void>,
): Promise<LoopMeasurement> {
  const warmupStarted = performance.now();
  let warmupRuns = 0;
  while (warmupRuns < plan.warmupRuns || performance.now() - warmupStarted < plan.warmupMs) {
    await runOnce(`w${warmupRuns}`);
    warmupRuns += 1;
  }
  const perRunMs = (performance.now() - warmupStarted) / Math.max(1, warmupRuns);
  const runs = Math.max(plan.minRuns, Math.min(plan.maxRuns, Math.round(plan.targetRepMs / Math.max(perRunMs, 1e-3))));
  const repMs: number[] = [];
  const repCpuUs: number[] = [];
  // No forced collection between repetitions: a full gc() ages and flushes compiled code, and the
  // next repetition pays for recompiling it — a cost of the harness, heavier the more code an
  // implementation runs (agentloop and the peers alike), not of the loop being measured.
  for (let rep = 0; rep < plan.reps; rep++) {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < runs; i++) await runOnce(`r${rep}-${i}`);
    repMs.push(performance.now() - started);
    const cpu = process.cpuUsage(cpuBefore);
    repCpuUs.push(cpu.user + cpu.system);
  }
  const steps = runs * plan.stepsPerRun;
  return {
    usPerStep: stat(repMs.map((ms) => (ms * 1000) / steps)),
    cpuUsPerStep: stat(repCpuUs.map((us) => us / steps)),
    runsPerSec: stat(repMs.map((ms) => runs / (ms / 1000))),
    repMs,
    runs,
    reps: plan.reps,
    warmupRuns,
  };
}

/** Warm-up time of every sequential benchmark (none in a smoke run). */
export const WARMUP_MS = 5_000;

/**
 * A loop plan: at least `warmupRuns` and at least WARMUP_MS of warm-up (3 runs in a smoke run),
 * repetitions of about 4 s each (0.3 s in a smoke run), never fewer than 20 runs (3 in a smoke run).
 */
export function loopPlan(quick: boolean, warmupRuns: number, stepsPerRun: number): LoopPlan {
  return quick
    ? {
        warmupRuns: Math.min(warmupRuns, 3),
        warmupMs: 0,
        targetRepMs: 300,
        minRuns: 3,
        maxRuns: 2_000,
        reps: 3,
        stepsPerRun,
      }
    : { warmupRuns, warmupMs: WARMUP_MS, targetRepMs: 4_000, minRuns: 20, maxRuns: 200_000, reps: 3, stepsPerRun };
}

/** The common result fields of a sequential loop measurement. */
export function loopFields(measured: LoopMeasurement) {
  return {
    usPerStep: { min: measured.usPerStep.min, median: measured.usPerStep.median },
    runsPerSec: { min: measured.runsPerSec.min, median: measured.runsPerSec.median, max: measured.runsPerSec.max },
    cpuUsPerStep: { min: measured.cpuUsPerStep.min, median: measured.cpuUsPerStep.median },
    peakRssMiB: peakRssMiB(),
    runs: measured.runs,
    reps: measured.reps,
    warmupRuns: measured.warmupRuns,
    repMs: measured.repMs.map((ms) => Math.round(ms)),
  };
}
