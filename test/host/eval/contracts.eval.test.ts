import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadCassettes } from "../../../src/host/eval/loadCassettes.js";
import { runEval } from "../../../src/host/eval/runEval.js";
import { useRuntimeHarness } from "../../support/runtimeHarness.js";

const CASSETTES = fileURLToPath(new URL("../../fixtures/eval/cassettes/", import.meta.url));
const harness = useRuntimeHarness("agentloop-eval-d-");

describe("the contract evaluation cassettes", () => {
  it("end every case as its cassette expects, with no completed claim lacking receipts", async () => {
    const runtime = await harness.makeRuntime();
    const report = await runEval(runtime, loadCassettes([CASSETTES]));
    const failures = report.cases
      .filter((result) => !result.pass)
      .map((result) => `${result.name}: got ${result.terminalState}/${result.reason}`);
    expect(failures).toEqual([]);
    expect(report.summary.total).toBeGreaterThanOrEqual(20);
    expect(report.summary.claimsWithoutReceipt).toBe(0);
    expect(report.summary.qaCompletionRate).toBe(1);
  });
});
