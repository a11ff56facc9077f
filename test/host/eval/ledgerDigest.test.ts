import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ledgerDigest } from "../../../scripts/ledgerDigest.mjs";
import { BUILTIN_SUITE } from "../../../src/cli/evalCommand.js";
import { loadCassettes } from "../../../src/host/eval/loadCassettes.js";
import { runEval } from "../../../src/host/eval/runEval.js";
import { useRuntimeHarness } from "../../support/runtimeHarness.js";

/**
 * The built-in suite's ledger, row for row: every run of every cassette ends in the same state for
 * the same reason with the same events and receipts as the committed digest (ids, times and
 * durations masked). The digest was taken with the run core before its rewrite as statecharts; a change
 * meant to change ledger rows regenerates it (`npm run digest:update`) and says why.
 */

const GOLDEN = new URL("../../fixtures/eval/golden/builtin-ledger.digest.json", import.meta.url);
const harness = useRuntimeHarness("agentloop-digest-");

describe("the built-in suite's ledger rows", () => {
  it("match the committed digest for every cassette", async () => {
    const runtime = await harness.makeRuntime();
    const report = await runEval(runtime, loadCassettes([BUILTIN_SUITE]), { database: harness.dbFile() });
    expect(report.summary.failed).toBe(0);
    await runtime.dispose();
    const digest = ledgerDigest(harness.dbFile());
    const golden = JSON.parse(readFileSync(GOLDEN, "utf8")) as ReturnType<typeof ledgerDigest>;
    expect(digest.map((run) => run.session)).toEqual(golden.map((run) => run.session));
    for (const [index, run] of digest.entries()) expect(run, run.session).toEqual(golden[index]);
  }, 120_000);
});
