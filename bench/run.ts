/**
 * `npm run bench [-- --json] [--quick] [--write] [--peers] [--only id,id] [--cpu-prof] [--merge FILE]`
 *
 * Runs each benchmark in a process of its own (bench/worker.ts), then prints one table (or, with
 * --json, `{ machine, results, ratios, targets }`) and with --write rewrites bench/RESULTS.md.
 * --peers adds the AI SDK and LangGraph peers (bench/peers, installed by `npm run bench:peers`).
 * --cpu-prof writes a V8 CPU profile of each benchmark's measured part to bench/profiles/<id>.cpuprofile
 * (TypeScript positions restored) and a hot-spot summary beside it (<id>.hotspots.txt); git-ignored.
 * --merge FILE takes the results of an earlier `--json` run and replaces those this run measures
 * (e.g. `--merge all.json --only projection.100k`); with `--only ''` nothing is re-measured.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ALL_IDS, type BenchId, CORE_IDS, PEER_IDS } from "./lib/ids.js";
import type { BenchReport, BenchResult } from "./lib/types.js";
import { runWorkerProcess } from "./lib/workerProcess.js";
import { checkTargets, computeRatios, machineInfo, resultsMarkdown, textReport } from "./report.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const RESULTS_FILE = fileURLToPath(new URL("./RESULTS.md", import.meta.url));
const PROFILES_DIR = fileURLToPath(new URL("./profiles/", import.meta.url));
const BIOME = fileURLToPath(new URL("../node_modules/@biomejs/biome/bin/biome", import.meta.url));

const { values } = parseArgs({
  options: {
    json: { type: "boolean", default: false },
    quick: { type: "boolean", default: false },
    write: { type: "boolean", default: false },
    peers: { type: "boolean", default: false },
    only: { type: "string" },
    merge: { type: "string" },
    "cpu-prof": { type: "boolean", default: false },
  },
  allowPositionals: false,
});

function selectedIds(): BenchId[] {
  if (values.only !== undefined) {
    const wanted = values.only
      .split(",")
      .map((id) => id.trim())
      .filter((id) => id.length > 0);
    const unknown = wanted.filter((id) => !ALL_IDS.includes(id as BenchId));
    if (unknown.length > 0) {
      process.stderr.write(`bench: unknown id(s) ${unknown.join(", ")}; known: ${ALL_IDS.join(", ")}\n`);
      process.exit(2);
    }
    return wanted as BenchId[];
  }
  return values.peers ? [...CORE_IDS, ...PEER_IDS] : [...CORE_IDS];
}

const log = (line: string) => process.stderr.write(`${line}\n`);

/** Runs one benchmark in a fresh Node process (tsx loader, --expose-gc) and parses its result. */
function runWorker(id: BenchId): Promise<BenchResult> {
  const env = { ...process.env };
  if (values["cpu-prof"]) {
    mkdirSync(PROFILES_DIR, { recursive: true });
    env.AGENTLOOP_BENCH_PROFILE_DIR = PROFILES_DIR;
  }
  return runWorkerProcess(id, { root: ROOT, quick: values.quick, env });
}

async function main(): Promise<void> {
  const ids = selectedIds();
  let machine = machineInfo();
  let command =
    process.env.AGENTLOOP_BENCH_COMMAND ??
    `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`;
  const results: BenchResult[] = [];
  for (const id of ids) {
    const started = Date.now();
    log(`bench: ${id} …`);
    const result = await runWorker(id);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    log(
      result.error
        ? `bench: ${id} failed after ${seconds} s: ${result.error}`
        : result.skipped
          ? `bench: ${id} skipped (${result.skipped})`
          : `bench: ${id} done in ${seconds} s: ${result.usPerStep ? `${result.usPerStep.median.toFixed(1)} µs/step median` : "ok"}`,
    );
    results.push(result);
  }
  if (values.merge) {
    const earlier = JSON.parse(readFileSync(values.merge, "utf8")) as BenchReport;
    const fresh = new Map(results.map((result) => [result.id, result]));
    if (fresh.size === 0) machine = earlier.machine;
    const merged = earlier.results.map((result) => fresh.get(result.id) ?? result);
    for (const result of results) if (!merged.some((other) => other.id === result.id)) merged.push(result);
    results.splice(0, results.length, ...merged);
    // Only re-rendered (nothing measured now): the command that measured it stays the command.
    command = fresh.size === 0 ? earlier.command : `${earlier.command}; then ${command}`;
    log(`bench: merged with ${values.merge} (measured ${earlier.machine.date})`);
  }
  const ratios = computeRatios(results);
  const report: BenchReport = { machine, command, results, ratios, targets: checkTargets(results, ratios) };
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : `${textReport(report)}\n`);
  if (values.write) {
    writeFileSync(RESULTS_FILE, resultsMarkdown(report, values.quick));
    // The repository formats Markdown with Biome (its tables padded): leave the file as `biome check` wants it.
    const biome = spawnSync(process.execPath, [BIOME, "format", "--write", RESULTS_FILE], {
      cwd: ROOT,
      stdio: "ignore",
    });
    log(`bench: wrote ${RESULTS_FILE}${biome.status === 0 ? "" : " (not formatted: biome failed)"}`);
  }
  if (results.some((result) => result.error)) process.exitCode = 1;
}

await main();
