/**
 * `bench/compare.ts`'s arithmetic and tables: the results of interleaved base/head rounds folded
 * into one result per id and side (the median over rounds of each measured number), the table, and
 * issue M's targets on each side.
 */
import { checkTargets, computeRatios } from "../report.js";
import { stat } from "./measure.js";
import type { BenchResult, TargetCheck } from "./types.js";

export type Side = "base" | "head";

/** One worker process's result, with where and when it ran. */
export interface CompareRun {
  readonly id: string;
  readonly side: Side;
  readonly round: number;
  readonly result: BenchResult;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The median over `values` of every number at the same place (objects recursively); anything else
 * (strings, arrays) from the first value. Absent and null values are left out.
 */
export function medianDeep(values: ReadonlyArray<unknown>): unknown {
  const present = values.filter((value) => value !== undefined && value !== null);
  if (present.length === 0) return values.length > 0 ? values[0] : undefined;
  if (present.every((value) => typeof value === "number")) return stat(present as number[]).median;
  if (present.every(isRecord)) {
    const keys = [...new Set(present.flatMap((value) => Object.keys(value)))];
    return Object.fromEntries(keys.map((key) => [key, medianDeep(present.map((value) => value[key]))]));
  }
  return present[0];
}

/** One result for an id and side: the median over its rounds that succeeded; an error when none did. */
export function foldRounds(id: string, results: ReadonlyArray<BenchResult>): BenchResult {
  const ok = results.filter((result) => !result.error && !result.skipped);
  if (ok.length === 0) {
    const first = results[0];
    if (first?.skipped) return { id, skipped: first.skipped };
    return { id, error: first?.error ?? "not run" };
  }
  return { ...(medianDeep(ok) as BenchResult), id };
}

export interface CompareRow {
  readonly id: string;
  /** Peers are the same code on both sides: measured once per round, from head. */
  readonly peer: boolean;
  readonly base: BenchResult | undefined;
  readonly head: BenchResult;
  /** head/base of the worker medians, round by round (rounds where both sides succeeded). */
  readonly perRound: ReadonlyArray<number>;
  /** Failures, "base r2: exit code 1: …". */
  readonly failures: ReadonlyArray<string>;
}

const usMedian = (result: BenchResult | undefined) =>
  result && !result.error && !result.skipped ? result.usPerStep?.median : undefined;

const cpuMedian = (result: BenchResult | undefined) =>
  result && !result.error && !result.skipped ? result.cpuUsPerStep?.median : undefined;

export function compareRows(
  runs: ReadonlyArray<CompareRun>,
  ids: ReadonlyArray<string>,
  isPeer: (id: string) => boolean,
): CompareRow[] {
  return ids.map((id) => {
    const of = (side: Side) => runs.filter((run) => run.id === id && run.side === side);
    const peer = isPeer(id);
    const rounds = [...new Set(runs.filter((run) => run.id === id).map((run) => run.round))].sort((a, b) => a - b);
    const perRound: number[] = [];
    if (!peer) {
      for (const round of rounds) {
        const base = usMedian(of("base").find((run) => run.round === round)?.result);
        const head = usMedian(of("head").find((run) => run.round === round)?.result);
        if (base !== undefined && head !== undefined && base > 0) perRound.push(head / base);
      }
    }
    const failures = runs
      .filter((run) => run.id === id && run.result.error)
      .map((run) => `${run.side} r${run.round + 1}: ${String(run.result.error).split("\n")[0]}`);
    return {
      id,
      peer,
      base: peer
        ? undefined
        : foldRounds(
            id,
            of("base").map((run) => run.result),
          ),
      head: foldRounds(
        id,
        of("head").map((run) => run.result),
      ),
      perRound,
      failures,
    };
  });
}

/** Issue M's targets on each side; a side without a peer's result uses head's (the same code). */
export function compareTargets(rows: ReadonlyArray<CompareRow>): { base: TargetCheck[]; head: TargetCheck[] } {
  const side = (which: Side) => {
    const results = rows.map((row) => (which === "base" && !row.peer ? row.base! : row.head));
    return checkTargets(results, computeRatios(results));
  };
  return { base: side("base"), head: side("head") };
}

const fmt = (value: number | undefined, digits = 1): string => {
  if (value === undefined || Number.isNaN(value)) return "—";
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString("en-US");
  return value.toFixed(Math.abs(value) < 10 ? Math.max(digits, 2) : digits);
};

const ratio = (numerator: number | undefined, denominator: number | undefined) =>
  numerator !== undefined && denominator !== undefined && denominator > 0 ? numerator / denominator : undefined;

const cell = (result: BenchResult | undefined, pick: (result: BenchResult) => number | undefined) => {
  if (!result) return "—";
  if (result.error) return `error: ${escapeCell(String(result.error).split("\n")[0]!.slice(0, 160))}`;
  if (result.skipped) return `skipped: ${escapeCell(result.skipped)}`;
  return fmt(pick(result));
};

const escapeCell = (text: string) => text.replaceAll("|", "\\|");

/** The before/after table: one row per id. */
export function compareTable(rows: ReadonlyArray<CompareRow>): string {
  const lines = [
    "| id | base µs/step | head µs/step | head/base | base CPU µs/step | head CPU µs/step | head/base CPU | head/base by round | notes |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
  ];
  for (const row of rows) {
    const notes: string[] = [];
    if (row.peer) notes.push("peer: same code on both sides, run from head once per round");
    if (row.failures.length > 0) notes.push(`failed: ${escapeCell(row.failures.join("; ").slice(0, 300))}`);
    lines.push(
      `| \`${row.id}\` | ${row.peer ? "(= head)" : cell(row.base, (r) => r.usPerStep?.median)} | ${cell(row.head, (r) => r.usPerStep?.median)} | ${row.peer ? "—" : fmt(ratio(usMedian(row.head), usMedian(row.base)), 2)} | ${row.peer ? "(= head)" : cell(row.base, (r) => r.cpuUsPerStep?.median)} | ${cell(row.head, (r) => r.cpuUsPerStep?.median)} | ${row.peer ? "—" : fmt(ratio(cpuMedian(row.head), cpuMedian(row.base)), 2)} | ${row.perRound.map((value) => value.toFixed(2)).join(", ") || "—"} | ${notes.join("; ")} |`,
    );
  }
  return lines.join("\n");
}

/** Issue M's targets, base beside head. */
export function compareTargetTable(targets: { base: TargetCheck[]; head: TargetCheck[] }): string {
  const met = (check: TargetCheck | undefined) =>
    check === undefined || check.met === null ? "n/a" : check.met ? "yes" : "**no**";
  const lines = ["| target | limit | base | met | head | met |", "| --- | :---: | ---: | :---: | ---: | :---: |"];
  targets.head.forEach((head, index) => {
    const base = targets.base[index];
    lines.push(
      `| ${head.target} | ${head.limit} | ${base?.value == null ? "—" : fmt(base.value, 2)} | ${met(base)} | ${head.value === null ? "—" : fmt(head.value, 2)} | ${met(head)} |`,
    );
  });
  return lines.join("\n");
}
