/**
 * The bench's `--json` shape (not its numbers): two cheap benchmarks in smoke mode, each in its own
 * process, with their results, ratios and target checks. No timing is asserted.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

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
  it("checks each target from the results it names, and leaves a target it has no result for open", async () => {
    const { checkTargets, computeRatios } = await import("../bench/report.js");
    const results = [
      { id: "agentloop.w10.sqlite", usPerStep: { min: 900, median: 1_000 } },
      { id: "floor.bare+sqlite", usPerStep: { min: 180, median: 200 } },
      {
        id: "scale.concurrent",
        rssPerInFlightRunKiB: { min: 150, median: 180, max: 320 },
        retainedPerInFlightRunKiB: { rss: { median: 70, max: 90 }, heap: { median: 50, max: 51 }, inFlight: 999 },
      },
      { id: "projection.100k", ms: { min: 110, median: 129 } },
    ];
    const targets = checkTargets(results, computeRatios(results));
    const byName = (start: string) => targets.filter((target) => target.target.startsWith(start));
    expect(byName("agentloop.w10.sqlite µs/step ÷ floor")).toEqual([expect.objectContaining({ value: 5, met: false })]);
    expect(byName("scale.concurrent").map((target) => [target.value, target.met])).toEqual([
      [320, false],
      [90, true],
    ]);
    expect(byName("projection.100k")).toEqual([expect.objectContaining({ value: 129, met: true })]);
    expect(byName("agentloop.w10.sqlite µs/step ÷ peer.ai-sdk")).toEqual([
      expect.objectContaining({ value: null, met: null }),
    ]);
  });
});
