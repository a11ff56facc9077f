import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadCassettes } from "../../../src/host/eval/loadCassettes.js";
import { runEval } from "../../../src/host/eval/runEval.js";
import { useRuntimeHarness } from "../../support/runtimeHarness.js";

const MEMORY = fileURLToPath(new URL("../../fixtures/eval/cassettes/memory.json", import.meta.url));
const harness = useRuntimeHarness("agentloop-eval-i-");

describe("the memory evaluation cassettes", () => {
  it("end every case as its cassette expects, memory included, with no completed claim lacking receipts", async () => {
    const runtime = await harness.makeRuntime();
    const cases = loadCassettes([MEMORY]);
    const report = await runEval(runtime, cases);
    const failures = report.cases
      .filter((result) => !result.pass)
      .map((result) => `${result.name}: got ${result.terminalState}/${result.reason}`);
    expect(failures).toEqual([]);
    expect(report.summary.total).toBe(cases.length);
    expect(report.summary.total).toBeGreaterThan(0);
    expect(report.summary.claimsWithoutReceipt).toBe(0);
  });
});
