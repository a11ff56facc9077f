import { existsSync, readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { describe, expect, it } from "vitest";
import { RunPathRecorder } from "../../../src/host/charts/pathRecorder.js";
import { writeHtmlReport } from "../../../src/host/eval/htmlReport.js";
import { loadCassettes } from "../../../src/host/eval/loadCassettes.js";
import { runEval } from "../../../src/host/eval/runEval.js";
import { runMachine } from "../../../src/machines/run/machine.js";
import { useRuntimeHarness } from "../../support/runtimeHarness.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`htmlReport.browser.test: ${CHROMIUM} is absent, so this real-browser test is skipped`);

const harness = useRuntimeHarness("agentloop-report-nowatermark-");

describe.skipIf(!hasChromium)("a report from a ledger without a watermark (as on PostgreSQL)", () => {
  it("still draws each case's path, and says the events per state are unknown rather than listing none", async () => {
    const recorder = new RunPathRecorder(runMachine.id); // no synchronous ledger read
    const runtime = await harness.makeRuntime({ inspect: recorder.inspect });
    const report = await runEval(runtime, loadCassettes(["eval/01-answers.json"]), { paths: recorder });
    const path = await writeHtmlReport(harness.path("report"), report, { command: "test" });
    expect(readFileSync(path, "utf8")).toContain('"eventsKnown":false');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      await page.goto(pathToFileURL(path).href);
      const first = page.locator("details.case").first();
      await first.locator("summary").click();
      const chart = first.getByTestId("case-chart").locator("svg");
      await expect.poll(() => chart.count()).toBe(1);
      expect(await chart.locator('g.transition[data-taken="true"]').count()).toBeGreaterThan(0);
      expect(await chart.locator("g.state.terminal").count()).toBe(1);
      expect(await chart.locator("g.state[data-events]").count()).toBe(0);
      await chart.locator('g.state[data-state="active.work.sampling"]').hover();
      expect(await first.getByTestId("state-events").textContent()).toBe(
        "Which state wrote which ledger event is known only for runs on a SQLite ledger.",
      );
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
