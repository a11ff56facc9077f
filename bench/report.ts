/** Ratios, target checks, the table, and bench/RESULTS.md. */
import { cpus, loadavg, totalmem } from "node:os";
import type { BenchReport, BenchResult, MachineInfo, TargetCheck } from "./lib/types.js";

export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    cpus: { model: list[0]?.model.trim() ?? "unknown", count: list.length },
    totalMemGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    date: new Date().toISOString(),
    loadavg: loadavg().map((value) => Math.round(value * 100) / 100),
  };
}

const find = (results: ReadonlyArray<BenchResult>, id: string) => results.find((result) => result.id === id);

const medianUs = (result: BenchResult | undefined): number | undefined =>
  result && !result.skipped && !result.error ? result.usPerStep?.median : undefined;

const medianCpuUs = (result: BenchResult | undefined): number | undefined =>
  result && !result.skipped && !result.error ? result.cpuUsPerStep?.median : undefined;

/** One backend's figures in `scale.replicas` (bench/workloads/replicas.ts). */
interface ReplicaFigures {
  readonly oneWorker: { readonly runsPerSec: { readonly median: number } };
  readonly twoWorkers: { readonly runsPerSec: { readonly median: number } };
  readonly twoOverOne: { readonly median: number };
  readonly checkedRuns: number;
  readonly lostRuns: number;
  readonly duplicatedEvents: number;
  readonly malformedRuns: number;
}

interface Nested {
  readonly usPerStep?: { readonly median: number };
  readonly cpuUsPerStep?: { readonly median: number };
}

/**
 * Ratios of median µs per step (wall time). Names read "a/b": a's time over b's (for ledger.append:
 * the store's throughput as a fraction of raw's). Each also as "… (cpu)": the same from process CPU
 * time per step, which other load on the machine skews less.
 */
export function computeRatios(results: ReadonlyArray<BenchResult>): Record<string, number> {
  const wall = wallRatios(results, medianUs, (nested) => nested?.usPerStep?.median);
  const cpu = wallRatios(results, medianCpuUs, (nested) => nested?.cpuUsPerStep?.median);
  const ratios: Record<string, number> = { ...wall };
  for (const [name, value] of Object.entries(cpu)) ratios[`${name} (cpu)`] = value;
  return ratios;
}

function wallRatios(
  results: ReadonlyArray<BenchResult>,
  pick: (result: BenchResult | undefined) => number | undefined,
  pickNested: (nested: Nested | undefined) => number | undefined,
): Record<string, number> {
  const ratios: Record<string, number> = {};
  const us = (id: string) => pick(find(results, id));
  const put = (name: string, numerator: number | undefined, denominator: number | undefined) => {
    if (numerator !== undefined && denominator !== undefined && denominator > 0) ratios[name] = numerator / denominator;
  };
  put("agentloop.w10.sqlite/floor.bare+sqlite", us("agentloop.w10.sqlite"), us("floor.bare+sqlite"));
  put(
    "agentloop.w10.sqlite/floor.bare+sqlite.writeahead",
    us("agentloop.w10.sqlite"),
    us("floor.bare+sqlite.writeahead"),
  );
  put("agentloop.w10.sqlite/floor.bare", us("agentloop.w10.sqlite"), us("floor.bare"));
  put("agentloop.w10.memory/floor.bare", us("agentloop.w10.memory"), us("floor.bare"));
  put("agentloop.w10.sqlite/agentloop.w10.memory", us("agentloop.w10.sqlite"), us("agentloop.w10.memory"));
  put("agentloop.w10.postgres/agentloop.w10.sqlite", us("agentloop.w10.postgres"), us("agentloop.w10.sqlite"));
  put("floor.statecharts/floor.bare+sqlite", us("floor.statecharts"), us("floor.bare+sqlite"));
  put("agentloop.w10.memory/floor.statecharts", us("agentloop.w10.memory"), us("floor.statecharts"));
  const ledger = find(results, "ledger.append");
  const raw = pickNested(ledger?.raw as Nested | undefined);
  const perBatch = pickNested(ledger?.perBatchRunPromise as Nested | undefined);
  // Throughput of the store as a fraction of raw better-sqlite3's (time raw / time store).
  put("ledger.append/raw", raw, pick(ledger));
  put("ledger.append.perBatchRunPromise/raw", raw, perBatch);
  put("agentloop.w10.sqlite/peer.ai-sdk", us("agentloop.w10.sqlite"), us("peer.ai-sdk"));
  put("agentloop.w10.memory/peer.ai-sdk", us("agentloop.w10.memory"), us("peer.ai-sdk"));
  put("floor.statecharts/peer.ai-sdk", us("floor.statecharts"), us("peer.ai-sdk"));
  put("peer.langgraph.memory/agentloop.w10.sqlite", us("peer.langgraph.memory"), us("agentloop.w10.sqlite"));
  put("peer.langgraph.sqlite/agentloop.w10.sqlite", us("peer.langgraph.sqlite"), us("agentloop.w10.sqlite"));
  const replicas = find(results, "scale.replicas");
  if (replicas && !replicas.error && !replicas.skipped && pick === medianUs) {
    // Throughput ratios (runs/s of 2 replicas over 1), medians of the per-repetition ratios.
    const speedup = (backend: unknown) => (backend as ReplicaFigures | undefined)?.twoOverOne.median;
    put("scale.replicas 2 workers/1 worker (runs/s, postgres)", speedup(replicas.postgres), 1);
    put("scale.replicas 2 workers/1 worker (runs/s, sqlite)", speedup(replicas.sqlite), 1);
  }
  return ratios;
}

/**
 * The targets of issue M, each from the ratios (or fields) of the same results.
 *
 * `scale.concurrent` is checked on the V8 heap the in-flight runs hold after a full GC
 * (`retainedPerInFlightRunKiB.heap`): that is memory the runs keep alive. The RSS taken after the
 * same GC (`retainedPerInFlightRunKiB.rss`, in the table's notes) is not: V8 and the allocator keep
 * the pages the wave's garbage grew into, so it stays near the wave's peak RSS whatever the runs hold.
 */
export function checkTargets(results: ReadonlyArray<BenchResult>, ratios: Record<string, number>): TargetCheck[] {
  const check = (target: string, value: number | undefined, limit: string, met: (v: number) => boolean) => ({
    target,
    value: value ?? null,
    limit,
    met: value === undefined ? null : met(value),
  });
  const scale = find(results, "scale.concurrent");
  const retained =
    scale && !scale.error && !scale.skipped
      ? (scale.retainedPerInFlightRunKiB as { heap?: { max?: number } } | null | undefined)
      : undefined;
  const longAnswers = results.filter(
    (result) => result.id.startsWith("answer.5mb.") && !result.error && !result.skipped,
  );
  const worstLongAnswerCpuMs =
    longAnswers.length > 0
      ? Math.max(...longAnswers.map((result) => (result.cpuMs as { median: number }).median))
      : undefined;
  return [
    check(
      "agentloop.w10.memory µs/step ÷ peer.ai-sdk µs/step",
      ratios["agentloop.w10.memory/peer.ai-sdk"],
      "≤ 1",
      (v) => v <= 1,
    ),
    check(
      "agentloop.w10.sqlite µs/step ÷ floor.bare+sqlite µs/step",
      ratios["agentloop.w10.sqlite/floor.bare+sqlite"],
      "≤ 1.5",
      (v) => v <= 1.5,
    ),
    check(
      "peer.langgraph.sqlite µs/step ÷ agentloop.w10.sqlite µs/step",
      ratios["peer.langgraph.sqlite/agentloop.w10.sqlite"],
      "≥ 10",
      (v) => v >= 10,
    ),
    check(
      "floor.statecharts µs/step ÷ peer.ai-sdk µs/step",
      ratios["floor.statecharts/peer.ai-sdk"],
      "≤ 0.5",
      (v) => v <= 0.5,
    ),
    check(
      "scale.concurrent KiB of heap held per in-flight run after a full GC (worst wave)",
      retained?.heap?.max,
      "≤ 100",
      (v) => v <= 100,
    ),
    check(
      "ms of CPU for the verifier to read a 5 MB answer (worst of answer.5mb.*, medians)",
      worstLongAnswerCpuMs,
      "≤ 1000",
      (v) => v <= 1000,
    ),
  ];
}

const fmt = (value: number | undefined, digits = 1): string => {
  if (value === undefined || Number.isNaN(value)) return "—";
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString("en-US");
  return value.toFixed(Math.abs(value) < 10 ? Math.max(digits, 2) : digits);
};

function detail(result: BenchResult): string {
  if (result.error) return `error: ${String(result.error).split("\n")[0]}`;
  if (result.skipped) return `skipped: ${result.skipped}`;
  const parts: string[] = [];
  if (result.id === "scale.concurrent") {
    const wall = result.wallMs as { median: number };
    const rss = result.rssPerInFlightRunKiB as { max: number; median: number };
    const heap = result.heapPerInFlightRunKiB as { max: number };
    const retained = result.retainedPerInFlightRunKiB as {
      rss: { max: number };
      heap: { max: number };
      inFlight: number;
    } | null;
    parts.push(
      `${result.concurrency} in flight, wall ${fmt(wall.median, 0)} ms, peak ${fmt(rss.max)} KiB RSS/run (worst wave; median ${fmt(rss.median)}), peak heap ${fmt(heap.max)} KiB/run${retained ? `; held after a full GC with ${retained.inFlight} in flight: ${fmt(retained.rss.max)} KiB RSS/run, ${fmt(retained.heap.max)} KiB heap/run` : ""}, ${result.completed} completed, ${result.ledgerRowsPerWave} rows/wave checked`,
    );
  } else if (result.id === "scale.replicas") {
    const line = (name: string, figures: ReplicaFigures) =>
      `${name}: 2 workers ${fmt(figures.twoWorkers.runsPerSec.median)} runs/s vs 1 worker ${fmt(figures.oneWorker.runsPerSec.median)} (×${fmt(figures.twoOverOne.median, 2)}), ${figures.checkedRuns} runs checked, ${figures.lostRuns} lost, ${figures.duplicatedEvents} duplicated events, ${figures.malformedRuns} malformed`;
    parts.push(
      `${line("PostgreSQL", result.postgres as ReplicaFigures)}; ${line("SQLite file", result.sqlite as ReplicaFigures)}`,
    );
  } else if (result.id === "ledger.append") {
    const raw = result.raw as { usPerStep: { median: number }; eventRowsPerSec: { median: number } };
    const own = result.eventRowsPerSec as { median: number };
    const perBatch = result.perBatchRunPromise as { usPerStep: { median: number } };
    parts.push(
      `store ${fmt(own.median, 0)} rows/s vs raw ${fmt(raw.eventRowsPerSec.median, 0)} rows/s (raw ${fmt(raw.usPerStep.median)} µs/step); one runPromise per batch: ${fmt(perBatch.usPerStep.median)} µs/step`,
    );
  } else if (result.id === "projection.100k") {
    const ms = result.ms as { min: number; median: number };
    const all = result.allRuns as { ms: { median: number }; contextMessages: number };
    const fixture = result.fixture as { events: number; runs: number };
    parts.push(
      `${fmt(ms.median)} ms median (min ${fmt(ms.min)}) for ${fixture.events} events / ${fixture.runs} runs: ${result.rowsRead} rows read, ${result.contextMessages} messages, ${result.contextTokens} tokens; reading every run instead: ${fmt(all.ms.median)} ms`,
    );
  } else if (result.id.startsWith("answer.")) {
    const cpu = result.cpuMs as { median: number; max: number };
    const wall = result.wallMs as { median: number };
    const hold = result.longestHoldMs as { max: number };
    parts.push(
      `${fmt(cpu.median, 0)} ms CPU (worst ${fmt(cpu.max, 0)}), ${fmt(wall.median, 0)} ms wall, event loop held at most ${fmt(hold.max, 0)} ms; ${result.pieces} pieces, ${result.readBytes} of ${result.answerBytes} bytes read`,
    );
  } else if (result.id === "claims") {
    const quality = result.quality as Record<string, { precision: number; recall: number; answers: number }>;
    const twoKb = result.usPer2KbAnswer as Record<string, { bytes: number; us: { median: number } }>;
    const pr = Object.entries(quality)
      .map(([split, q]) => `${split} P ${q.precision.toFixed(3)} R ${q.recall.toFixed(3)} (${q.answers})`)
      .join(", ");
    const perAnswer = Object.entries(twoKb)
      .map(([lang, t]) => `${lang} ${fmt(t.us.median)} µs per ${t.bytes}-byte answer`)
      .join(", ");
    parts.push(`${fmt(result.answersPerSec as number, 0)} answers/s over ${result.corpusAnswers}; ${perAnswer}; ${pr}`);
  } else if (result.id === "hygiene.redact") {
    const median = (key: string) => (result[key] as { median: number }).median;
    parts.push(
      `${fmt(median("usPerW10Payload"), 2)} µs per W10 payload (no hint), ${fmt(median("usPer2KbHintedOutput"))} µs per 2 KB output with a hint, ${fmt(median("usPerSecretShape"))} µs per secret shape (${result.secretShapes}), ${fmt(median("msPerHintedMb"))} ms per MB with a hint`,
    );
  }
  if (result.runs !== undefined && result.id !== "scale.concurrent" && result.id !== "scale.replicas")
    parts.push(`${result.reps}×${result.runs} runs after ${result.warmupRuns} warm-up`);
  return parts.join("; ");
}

export function table(report: BenchReport): string {
  const lines = [
    "| id | µs/step min | µs/step median | CPU µs/step median | runs/s median | peak RSS MiB | notes |",
    "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
  ];
  for (const result of report.results) {
    lines.push(
      `| \`${result.id}\` | ${fmt(result.usPerStep?.min)} | ${fmt(result.usPerStep?.median)} | ${fmt(result.cpuUsPerStep?.median)} | ${fmt(result.runsPerSec?.median)} | ${fmt(result.peakRssMiB, 0)} | ${detail(result)} |`,
    );
  }
  return lines.join("\n");
}

export function ratioTable(report: BenchReport): string {
  const lines = ["| ratio (medians) | value |", "| --- | ---: |"];
  for (const [name, value] of Object.entries(report.ratios)) lines.push(`| \`${name}\` | ${fmt(value, 2)} |`);
  return lines.join("\n");
}

export function targetTable(report: BenchReport): string {
  const lines = ["| target | measured | limit | met |", "| --- | ---: | :---: | :---: |"];
  for (const check of report.targets) {
    const met = check.met === null ? "n/a" : check.met ? "yes" : "**no**";
    lines.push(`| ${check.target} | ${check.value === null ? "—" : fmt(check.value, 2)} | ${check.limit} | ${met} |`);
  }
  return lines.join("\n");
}

const busy = (machine: MachineInfo) => (machine.loadavg[0] ?? 0) > machine.cpus.count;

const machineLine = (machine: MachineInfo) =>
  `${machine.cpus.model} × ${machine.cpus.count}, ${machine.totalMemGiB} GiB, ${machine.platform}/${machine.arch}, Node ${machine.node}; load average at start ${machine.loadavg.join(" / ")}`;

/** What the terminal shows (without --json). */
export function textReport(report: BenchReport): string {
  return [
    `agentloop bench — ${report.machine.date}`,
    machineLine(report.machine),
    "",
    table(report),
    "",
    ratioTable(report),
    "",
    "Targets (reported, not gated):",
    targetTable(report),
  ].join("\n");
}

export function resultsMarkdown(report: BenchReport, quick: boolean): string {
  return `# Benchmark results

Measured with \`${report.command}\` on ${report.machine.date}.${quick ? "\n\n**Smoke run (`--quick`): tiny counts, not a measurement.**" : ""}

Machine: ${machineLine(report.machine)}.

Workload W10: one run = 10 sequential model steps; steps 1–9 call \`lookup({ i })\` (answered at
once), step 10 answers in text; zero model latency; the scripted model derives its step from the
tool results in the history it is handed. Contract \`observe\` with \`requiredToolNames: ["lookup"]\`:
every agentloop run ends \`completed\` through the verifier. Each benchmark runs in its own process:
warm-up first (at least 5 s, and at least the runs the table names, so every implementation is
measured at its JIT's steady state), then 3 repetitions of about 4 s with no forced GC between
them (a forced full GC flushes compiled code the next repetition recompiles); min and median over the
repetitions; peak RSS is the process's.
µs/step = a repetition's wall time / (runs × 10); CPU µs/step = the process's CPU time (user +
system, all threads) over the same steps.${
    busy(report.machine)
      ? `

**This machine was shared while it was measured** (load average ${report.machine.loadavg.join(" / ")} on ${report.machine.cpus.count} cores
at the start): wall times are inflated and noisy, more so for the benchmarks that ran while the load
was highest. CPU µs/step is less affected; every ratio is also given from CPU time ("(cpu)").`
      : ""
  }

${table(report)}

${ratioTable(report)}

Targets of issue M (the bench reports them; it does not gate CI). \`scale.concurrent\` is checked on
the V8 heap the in-flight runs hold after a full GC: the RSS after that GC (in the notes) keeps the
pages the wave's garbage grew into, so it tracks the wave's peak, not what the runs hold.

${targetTable(report)}

What each id measures:

${report.results.map((result) => `- \`${result.id}\`: ${result.what ?? result.skipped ?? result.error ?? ""}`).join("\n")}

Reproduce: \`npm run bench\` (add \`--json\` for machine-readable output, \`--quick\` for a smoke run,
\`--write\` to rewrite this file); with the peers: \`npm run bench:peers\`.
`;
}
