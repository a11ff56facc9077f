import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadCassettes } from "../../../src/host/eval/loadCassettes.js";
import { runEval } from "../../../src/host/eval/runEval.js";
import { useRuntimeHarness } from "../../support/runtimeHarness.js";

const BUILTIN = fileURLToPath(new URL("../../fixtures/eval/cassettes/builtin.json", import.meta.url));
const harness = useRuntimeHarness("agentloop-eval-h-");

describe("the built-in tool evaluation cassettes", () => {
  it("end every case as its cassette expects, with no completed claim lacking receipts", async () => {
    const runtime = await harness.makeRuntime();
    const cases = loadCassettes([BUILTIN]);
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
