/**
 * `npm run fuzz [-- --only kill,hostile,properties,race] [--kill-points N] [--runs N] [--race-rounds N] [--seed N] [--json]`
 *
 * The reliability suites of issue N, at full size: SIGKILL points across multi-step runs then
 * recovery (kill), malformed and hostile provider responses over the three wire APIs (hostile),
 * fast-check properties over ledger append sequences (properties), and takeover races of real
 * processes counting side effects outside the ledger, on SQLite and PostgreSQL (race). Prints each suite's
 * figures and violations; exits 1 when any suite reports a violation. `npm test` runs the same
 * suites at smoke size (test/fuzz/).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runHostileProviders } from "./hostileProviders.js";
import { runKillFuzz } from "./killFuzz.js";
import { runLedgerProperties } from "./ledgerProperties.js";
import { type RaceReport, runRaceFuzz } from "./raceFuzz.js";
import type { FuzzReport } from "./report.js";

const { values } = parseArgs({
  options: {
    only: { type: "string" },
    "kill-points": { type: "string", default: "500" },
    runs: { type: "string", default: "1000" },
    "race-rounds": { type: "string", default: "210" },
    seed: { type: "string" },
    json: { type: "boolean", default: false },
  },
  allowPositionals: false,
});

const positive = (name: string, text: string): number => {
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) {
    process.stderr.write(`fuzz: --${name} must be a positive integer, got ${JSON.stringify(text)}\n`);
    process.exit(2);
  }
  return value;
};

const SUITES = {
  kill: () => runKillFuzz({ killPoints: positive("kill-points", values["kill-points"]!), ...seed() }),
  hostile: () => runHostileProviders(),
  properties: () => runLedgerProperties({ numRuns: positive("runs", values.runs!), ...seed() }),
  race: async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentloop-race-"));
    const rounds = positive("race-rounds", values["race-rounds"]!);
    // A run left open (a stall) fails the suite like a broken invariant.
    const strict = (report: RaceReport): FuzzReport => ({
      ...report,
      violations: [...report.violations, ...report.stalls],
    });
    const sqlite = strict(await runRaceFuzz({ backend: "sqlite", rounds, dir, concurrency: 4, ...seed() }));
    const pgUrl = process.env.AGENTLOOP_TEST_PG_URL;
    if (!pgUrl) {
      process.stderr.write(
        "fuzz: race on PostgreSQL skipped: set AGENTLOOP_TEST_PG_URL (scripts/pg-cluster.sh start)\n",
      );
      return sqlite;
    }
    const postgres = strict(await runRaceFuzz({ backend: "postgres", rounds, dir, pgUrl, concurrency: 6, ...seed() }));
    return {
      suite: "raceFuzz",
      figures: Object.fromEntries([
        ...Object.entries(sqlite.figures).map(([key, value]) => [`sqlite.${key}`, value]),
        ...Object.entries(postgres.figures).map(([key, value]) => [`postgres.${key}`, value]),
      ]),
      violations: [...sqlite.violations, ...postgres.violations],
    };
  },
} as const;
type SuiteName = keyof typeof SUITES;

function seed(): { seed?: number } {
  return values.seed === undefined ? {} : { seed: Number(values.seed) };
}

function selected(): SuiteName[] {
  if (values.only === undefined) return Object.keys(SUITES) as SuiteName[];
  const names = values.only.split(",").map((name) => name.trim());
  const unknown = names.filter((name) => !Object.hasOwn(SUITES, name));
  if (unknown.length > 0) {
    process.stderr.write(`fuzz: unknown suite(s) ${unknown.join(", ")}; known: ${Object.keys(SUITES).join(", ")}\n`);
    process.exit(2);
  }
  return names as SuiteName[];
}

function print(report: FuzzReport): void {
  const lines = [`## ${report.suite}`, "", "| figure | value |", "| --- | ---: |"];
  for (const [name, value] of Object.entries(report.figures)) lines.push(`| ${name} | ${value} |`);
  lines.push("", report.violations.length === 0 ? "violations: 0" : `violations: ${report.violations.length}`);
  for (const violation of report.violations.slice(0, 20)) lines.push(`- ${violation}`);
  process.stdout.write(`${lines.join("\n")}\n\n`);
}

async function main(): Promise<number> {
  const reports: FuzzReport[] = [];
  for (const name of selected()) {
    process.stderr.write(`fuzz: ${name} …\n`);
    const started = Date.now();
    const report = await SUITES[name]();
    process.stderr.write(`fuzz: ${name} done in ${Math.round((Date.now() - started) / 1000)} s\n`);
    reports.push(report);
    if (!values.json) print(report);
  }
  if (values.json) process.stdout.write(`${JSON.stringify(reports, null, 2)}\n`);
  return reports.some((report) => report.violations.length > 0) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`fuzz: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
