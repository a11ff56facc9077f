/** The shapes `--json` prints. */

export interface MinMedian {
  readonly min: number;
  readonly median: number;
}

export interface BenchResult {
  readonly id: string;
  /** Set when the benchmark could not run here; every other field is then absent. */
  readonly skipped?: string;
  /** Set when the benchmark's process failed (a run that did not end `completed`, a crash, a time-out). */
  readonly error?: string;
  /** µs per W10 model step (run wall time / 10). */
  readonly usPerStep?: MinMedian;
  /** Process CPU time (user + system) per W10 step: less sensitive than wall time to other load on the machine. */
  readonly cpuUsPerStep?: MinMedian;
  /** Whole W10 runs per second (`max` is the best repetition). */
  readonly runsPerSec?: MinMedian & { readonly max: number };
  /** Peak resident set size of the benchmark's own process (getrusage maxrss). */
  readonly peakRssMiB?: number;
  readonly runs?: number;
  readonly reps?: number;
  readonly warmupRuns?: number;
  /** What exactly was measured, in one line. */
  readonly what?: string;
  readonly [extra: string]: unknown;
}

export interface MachineInfo {
  readonly node: string;
  readonly platform: string;
  readonly arch: string;
  readonly cpus: { readonly model: string; readonly count: number };
  readonly totalMemGiB: number;
  readonly date: string;
  /** 1/5/15-minute load averages when the bench started: other load on the machine skews results. */
  readonly loadavg: ReadonlyArray<number>;
}

export interface BenchReport {
  readonly machine: MachineInfo;
  readonly command: string;
  readonly results: ReadonlyArray<BenchResult>;
  readonly ratios: Readonly<Record<string, number>>;
  readonly targets: ReadonlyArray<TargetCheck>;
}

export interface TargetCheck {
  readonly target: string;
  readonly value: number | null;
  readonly limit: string;
  readonly met: boolean | null;
}

export interface BenchOptions {
  /** Smoke run: tiny counts, same shape. */
  readonly quick: boolean;
  /** A directory of this benchmark process's own (SQLite files). */
  readonly dir: string;
  /** Wraps the measured part (after set-up): under `--cpu-prof` it is profiled, else just run. */
  readonly measured: <A>(fn: () => Promise<A>) => Promise<A>;
}
