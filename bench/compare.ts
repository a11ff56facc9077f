/**
 * `npm run bench:compare -- --base DIR [--head DIR] [--rounds N] [--ids id,id] [--quick]
 * [--budget-min M] [--json FILE]`
 *
 * Before/after in one session: for each benchmark id, the base checkout's worker and the head
 * checkout's worker (`node --expose-gc --import tsx <root>/bench/worker.ts <id>`, on the checkout's
 * own build — both sides are built first, see lib/builtPackage.mjs — each in its own
 * checkout as working directory) run one after the other, round after round, alternating which side
 * goes first, so the machine's drift and noise fall on both alike. The peers (the same code on both
 * sides) run once per round, from head. Prints a Markdown table — base and head median µs/step (the
 * median over rounds of each worker's median), head/base, the same from CPU time, head/base round by
 * round — and issue M's targets evaluated on each side's folded results (base uses head's peers).
 * A worker that fails is reported in the table; the other rounds and ids still run.
 *
 * --head defaults to this checkout. --budget-min M: after the first round, fewer rounds (never
 * fewer than 2) when N rounds would take longer than M minutes. --json FILE also writes every
 * worker's result and the folded tables' inputs.
 */
import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  type CompareRun,
  compareRows,
  compareTable,
  compareTargets,
  compareTargetTable,
  type Side,
} from "./lib/compare.js";
import { ALL_IDS, type BenchId, PEER_IDS } from "./lib/ids.js";
import { runWorkerProcess } from "./lib/workerProcess.js";
import { machineInfo } from "./report.js";

const HERE = fileURLToPath(new URL("../", import.meta.url));

/** The ids issue M's targets and the rewrite's costs are read from. */
const DEFAULT_IDS: ReadonlyArray<BenchId> = [
  "agentloop.w10.sqlite",
  "agentloop.w10.memory",
  "floor.bare+sqlite",
  "floor.bare+sqlite.writeahead",
  "floor.statecharts",
  "ledger.append",
  "scale.concurrent",
  ...PEER_IDS,
];

const { values } = parseArgs({
  options: {
    base: { type: "string" },
    head: { type: "string" },
    rounds: { type: "string", default: "3" },
    ids: { type: "string" },
    quick: { type: "boolean", default: false },
    "budget-min": { type: "string" },
    json: { type: "string" },
  },
  allowPositionals: false,
});

const log = (line: string) => process.stderr.write(`${line}\n`);

function fail(message: string): never {
  log(`bench:compare: ${message}`);
  process.exit(2);
}

const isPeer = (id: string) => (PEER_IDS as ReadonlyArray<string>).includes(id);

/** `git rev-parse --short HEAD` plus whether the tree has changes (read-only git). */
function describeCheckout(root: string): string {
  try {
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], {
      cwd: root,
      encoding: "utf8",
    }).trim();
    return `${commit}${dirty ? " + uncommitted changes" : ""}`;
  } catch {
    return "not a git checkout";
  }
}

async function main(): Promise<void> {
  if (!values.base) fail("--base DIR is required (a checkout of the commit to compare against)");
  const base = resolve(values.base);
  const head = resolve(values.head ?? HERE);
  for (const root of [base, head]) {
    if (!existsSync(resolve(root, "bench", "worker.ts"))) fail(`${root} has no bench/worker.ts`);
    // Each side runs its own build (see lib/builtPackage.mjs), so each is built from its own sources.
    try {
      execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: root, stdio: ["ignore", "ignore", "pipe"] });
    } catch (error) {
      fail(`could not build ${root}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
    }
  }
  const ids = values.ids
    ? values.ids
        .split(",")
        .map((id) => id.trim())
        .filter((id) => id.length > 0)
    : [...DEFAULT_IDS];
  const unknown = ids.filter((id) => !ALL_IDS.includes(id as BenchId));
  if (unknown.length > 0) fail(`unknown id(s) ${unknown.join(", ")}; known: ${ALL_IDS.join(", ")}`);
  let rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) fail("--rounds must be a positive integer");
  const budgetMs = values["budget-min"] === undefined ? undefined : Number(values["budget-min"]) * 60_000;

  const machineAtStart = machineInfo();
  const sides = { base: describeCheckout(base), head: describeCheckout(head) };
  log(`bench:compare: base ${base} (${sides.base}) vs head ${head} (${sides.head}); ${rounds} round(s)`);
  const runs: CompareRun[] = [];
  const started = Date.now();
  for (let round = 0; round < rounds; round++) {
    const roundStarted = Date.now();
    for (const id of ids) {
      const order: Side[] = isPeer(id) ? ["head"] : round % 2 === 0 ? ["base", "head"] : ["head", "base"];
      for (const side of order) {
        const workerStarted = Date.now();
        const result = await runWorkerProcess(id, { root: side === "base" ? base : head, quick: values.quick });
        runs.push({ id, side, round, result });
        const seconds = ((Date.now() - workerStarted) / 1000).toFixed(1);
        log(
          `bench:compare: r${round + 1} ${side} ${id} ${
            result.error
              ? `failed after ${seconds} s: ${result.error}`
              : result.skipped
                ? `skipped (${result.skipped})`
                : `${result.usPerStep?.median.toFixed(1)} µs/step median (${seconds} s)`
          }`,
        );
      }
    }
    const roundMs = Date.now() - roundStarted;
    log(`bench:compare: round ${round + 1} took ${(roundMs / 60_000).toFixed(1)} min`);
    if (round === 0 && budgetMs !== undefined && rounds > 2 && roundMs * rounds > budgetMs) {
      const fit = Math.max(2, Math.floor(budgetMs / roundMs));
      if (fit < rounds) {
        log(
          `bench:compare: ${rounds} rounds would take ~${((roundMs * rounds) / 60_000).toFixed(0)} min (budget ${values["budget-min"]}): ${fit} rounds`,
        );
        rounds = fit;
      }
    }
  }
  const rows = compareRows(runs, ids, isPeer);
  const targets = compareTargets(rows);
  const machineAtEnd = machineInfo();
  const markdown = [
    `Base ${sides.base} (\`${base}\`) against head ${sides.head} (\`${head}\`), ${rounds} interleaved round(s)${values.quick ? " — **smoke run (`--quick`), not a measurement**" : ""}, ${machineAtStart.date} to ${machineAtEnd.date}.`,
    `Machine: ${machineAtStart.cpus.model} × ${machineAtStart.cpus.count}, Node ${machineAtStart.node}; load average ${machineAtStart.loadavg.join(" / ")} at the start, ${machineAtEnd.loadavg.join(" / ")} at the end.`,
    "Each cell is the median over rounds of one worker's median (3 repetitions of ≈4 s after ≥5 s of warm-up); within a round the two sides of an id run back to back, alternating which goes first.",
    "",
    compareTable(rows),
    "",
    "Issue M's targets on each side (base uses head's peer results: the same code):",
    "",
    compareTargetTable(targets),
    "",
  ].join("\n");
  process.stdout.write(markdown);
  if (values.json) {
    writeFileSync(
      values.json,
      `${JSON.stringify({ base: { root: base, commit: sides.base }, head: { root: head, commit: sides.head }, rounds, machineAtStart, machineAtEnd, wallMinutes: (Date.now() - started) / 60_000, runs, rows, targets }, null, 2)}\n`,
    );
    log(`bench:compare: wrote ${values.json}`);
  }
  if (runs.some((run) => run.result.error)) process.exitCode = 1;
}

await main();
