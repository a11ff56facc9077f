/**
 * The bench's `--json` shape (not its numbers): two cheap benchmarks in smoke mode, each in its own
 * process, with their results, ratios and target checks. No timing is asserted.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { noticePostgresSkipped, PG_URL } from "./support/backends.js";

noticePostgresSkipped();

describe("npm run bench -- --quick --json", () => {
  it("prints machine, results with the measured fields, ratios and targets", () => {
    const run = spawnSync(
      process.execPath,
      ["--import", "tsx", "bench/run.ts", "--quick", "--json", "--only", "floor.bare,agentloop.w10.memory"],
      { encoding: "utf8", timeout: 90_000 },
    );
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as {
      machine: Record<string, unknown>;
      results: Array<Record<string, unknown> & { id: string }>;
      ratios: Record<string, number>;
      targets: Array<{ target: string; met: boolean | null }>;
    };
    expect(Object.keys(report.machine)).toEqual(
      expect.arrayContaining(["node", "platform", "arch", "cpus", "totalMemGiB", "date"]),
    );
    expect(report.results.map((result) => result.id)).toEqual(["floor.bare", "agentloop.w10.memory"]);
    for (const result of report.results) {
      expect(result).toMatchObject({
        usPerStep: { min: expect.any(Number), median: expect.any(Number) },
        runsPerSec: { min: expect.any(Number), median: expect.any(Number) },
        peakRssMiB: expect.any(Number),
      });
    }
    expect(report.ratios["agentloop.w10.memory/floor.bare"]).toEqual(expect.any(Number));
    expect(report.targets.length).toBeGreaterThan(0);
  }, 120_000);
});

describe("bench targets", () => {
  it("checks the bench targets, each from the results it names, and leaves a target it has no result for open", async () => {
    const { checkTargets, computeRatios } = await import("../bench/report.js");
    const results = [
      { id: "agentloop.w10.sqlite", usPerStep: { min: 250, median: 300 } },
      { id: "agentloop.w10.memory", usPerStep: { min: 180, median: 200 } },
      { id: "floor.bare+sqlite", usPerStep: { min: 180, median: 200 } },
      { id: "floor.statecharts", usPerStep: { min: 90, median: 100 } },
      { id: "peer.ai-sdk", usPerStep: { min: 150, median: 160 } },
      {
        id: "scale.concurrent",
        rssPerInFlightRunKiB: { min: 150, median: 180, max: 320 },
        retainedPerInFlightRunKiB: { rss: { median: 280, max: 290 }, heap: { median: 40, max: 48 }, inFlight: 999 },
      },
    ];
    const targets = checkTargets(results, computeRatios(results));
    const value = (start: string) => {
      const found = targets.filter((target) => target.target.startsWith(start));
      expect(found, start).toHaveLength(1);
      return [found[0]!.value, found[0]!.limit, found[0]!.met];
    };
    expect(targets).toHaveLength(6);
    expect(value("agentloop.w10.memory µs/step ÷ peer.ai-sdk")).toEqual([1.25, "≤ 1", false]);
    expect(value("agentloop.w10.sqlite µs/step ÷ floor.bare+sqlite")).toEqual([1.5, "≤ 1.5", true]);
    expect(value("floor.statecharts µs/step ÷ peer.ai-sdk")).toEqual([0.625, "≤ 0.5", false]);
    // The heap held after a full GC, not the RSS after it (which keeps the wave's garbage pages).
    expect(value("scale.concurrent")).toEqual([48, "≤ 100", true]);
    // No LangGraph result: open, not failed.
    expect(value("peer.langgraph.sqlite µs/step ÷ agentloop.w10.sqlite")).toEqual([null, "≥ 10", null]);
    // No long-answer result either: the verifier's CPU target stays open.
    expect(value("ms of CPU for the verifier")).toEqual([null, "≤ 1000", null]);
    const ratios = computeRatios([
      ...results,
      { id: "peer.langgraph.sqlite", usPerStep: { min: 3_000, median: 3_300 } },
    ]);
    expect(checkTargets(results, ratios).find((target) => target.target.startsWith("peer.langgraph"))).toMatchObject({
      value: 11,
      met: true,
    });
  });

  it("leaves the scale target open when scale.concurrent failed", async () => {
    const { checkTargets } = await import("../bench/report.js");
    const targets = checkTargets([{ id: "scale.concurrent", error: "exit code 1: boom" }], {});
    expect(targets.every((target) => target.met === null && target.value === null)).toBe(true);
  });
});

describe("bench:compare folding", () => {
  it("takes the median over rounds of each worker's numbers, per side, and reports failed workers", async () => {
    const { compareRows, compareTable, compareTargets } = await import("../bench/lib/compare.js");
    const loop = (median: number, cpu = median) => ({
      usPerStep: { min: median - 1, median },
      cpuUsPerStep: { min: cpu, median: cpu },
    });
    const runs = [
      {
        id: "agentloop.w10.memory",
        side: "base" as const,
        round: 0,
        result: { id: "agentloop.w10.memory", ...loop(700) },
      },
      {
        id: "agentloop.w10.memory",
        side: "head" as const,
        round: 0,
        result: { id: "agentloop.w10.memory", ...loop(350) },
      },
      {
        id: "agentloop.w10.memory",
        side: "head" as const,
        round: 1,
        result: { id: "agentloop.w10.memory", ...loop(400) },
      },
      {
        id: "agentloop.w10.memory",
        side: "base" as const,
        round: 1,
        result: { id: "agentloop.w10.memory", ...loop(800) },
      },
      {
        id: "agentloop.w10.memory",
        side: "base" as const,
        round: 2,
        result: { id: "agentloop.w10.memory", error: "exit code 1: boom | at x" },
      },
      {
        id: "agentloop.w10.memory",
        side: "head" as const,
        round: 2,
        result: { id: "agentloop.w10.memory", ...loop(390) },
      },
      {
        id: "floor.statecharts",
        side: "base" as const,
        round: 0,
        result: { id: "floor.statecharts", error: "killed by SIGKILL" },
      },
      { id: "floor.statecharts", side: "head" as const, round: 0, result: { id: "floor.statecharts", ...loop(90) } },
      { id: "peer.ai-sdk", side: "head" as const, round: 0, result: { id: "peer.ai-sdk", ...loop(150) } },
      { id: "peer.ai-sdk", side: "head" as const, round: 1, result: { id: "peer.ai-sdk", ...loop(170) } },
    ];
    const rows = compareRows(runs, ["agentloop.w10.memory", "floor.statecharts", "peer.ai-sdk"], (id) =>
      id.startsWith("peer."),
    );
    const [memory, statecharts, peer] = rows;
    expect(memory!.base?.usPerStep).toEqual({ min: 749, median: 750 });
    expect(memory!.head.usPerStep?.median).toBe(390);
    expect(memory!.perRound).toEqual([0.5, 0.5]);
    expect(memory!.failures).toEqual(["base r3: exit code 1: boom | at x"]);
    expect(statecharts!.base).toEqual({ id: "floor.statecharts", error: "killed by SIGKILL" });
    expect(peer).toMatchObject({ peer: true, base: undefined, head: { usPerStep: { median: 160 } } });

    const table = compareTable(rows);
    expect(table).toContain("| `agentloop.w10.memory` | 750.0 | 390.0 | 0.52 |");
    expect(table).toContain("error: killed by SIGKILL");
    expect(table).toContain("exit code 1: boom \\| at x");

    const targets = compareTargets(rows);
    const memoryTarget = (side: "base" | "head") =>
      targets[side].find((target) => target.target.startsWith("agentloop.w10.memory"));
    expect(memoryTarget("base")).toMatchObject({ value: 750 / 160, met: false });
    expect(memoryTarget("head")).toMatchObject({ value: 390 / 160, met: false });
    const statechartsTarget = (side: "base" | "head") =>
      targets[side].find((target) => target.target.startsWith("floor.statecharts"));
    expect(statechartsTarget("base")).toMatchObject({ value: null, met: null });
    expect(statechartsTarget("head")).toMatchObject({ value: 90 / 160, met: false });
  });
});

describe("the PostgreSQL benchmarks", () => {
  it.skipIf(!PG_URL)(
    "agentloop.w10.postgres and scale.replicas run in smoke mode, verify their runs in the database and report the SQLite figures beside them",
    () => {
      const run = spawnSync(
        process.execPath,
        ["--import", "tsx", "bench/run.ts", "--quick", "--json", "--only", "agentloop.w10.postgres,scale.replicas"],
        { encoding: "utf8", timeout: 240_000, env: { ...process.env, AGENTLOOP_BENCH_PG_URL: PG_URL } },
      );
      expect(run.status, run.stderr).toBe(0);
      const report = JSON.parse(run.stdout) as {
        results: Array<Record<string, unknown> & { id: string }>;
        ratios: Record<string, number>;
      };
      const [postgres, replicas] = report.results;
      expect(postgres).toMatchObject({ id: "agentloop.w10.postgres", usPerStep: { median: expect.any(Number) } });
      const figures = { lostRuns: 0, duplicatedEvents: 0, malformedRuns: 0, checkedRuns: 40 };
      expect(replicas).toMatchObject({ id: "scale.replicas", postgres: figures, sqlite: figures });
      expect(report.ratios["scale.replicas 2 workers/1 worker (runs/s, postgres)"]).toEqual(expect.any(Number));
      expect(report.ratios["agentloop.w10.postgres/agentloop.w10.sqlite"]).toBeUndefined();
    },
    300_000,
  );
});
