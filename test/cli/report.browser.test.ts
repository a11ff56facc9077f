import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import type { CliIO } from "../../src/cli/output.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(
    `report.browser.test: ${CHROMIUM} is absent, so the real-browser report test is skipped (.ci/run installs it)`,
  );
}

/** Screenshots stay after the run (a test artifact); AGENTLOOP_REPORT_PNG copies the case chart there too. */
const SHOTS = mkdtempSync(join(tmpdir(), "agentloop-report-shots-"));

/** The one browser global the tests read (the project's TypeScript has no DOM library). */
interface BrowserWindow {
  getComputedStyle(element: unknown): { fill: string; strokeWidth: string; strokeDasharray: string };
}

const LAUNCH_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

describe.skipIf(!hasChromium)("HTML evaluation report in headless Chromium", () => {
  let dir: string;
  let reportPath: string;
  let browser: Browser;

  const open = async (width = 1280, height = 900): Promise<Page> => {
    const page = await browser.newPage({ viewport: { width, height } });
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    await page.goto(pathToFileURL(reportPath).href);
    (page as Page & { errors?: string[] }).errors = errors;
    return page;
  };
  const errorsOf = (page: Page) => (page as Page & { errors?: string[] }).errors ?? [];

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
    dir = mkdtempSync(join(tmpdir(), "agentloop-report-"));
    const lines: string[] = [];
    const io: CliIO = { out: (line) => lines.push(line), err: (line) => lines.push(line), isTTY: false };
    const code = await main(
      [
        "eval",
        "eval/01-answers.json",
        "eval/05-failures.json",
        "eval/06-claims.json",
        "--db",
        join(dir, "ledger.db"),
        "--report",
        join(dir, "report"),
      ],
      io,
    );
    expect(code).toBe(0);
    reportPath = join(dir, "report", "index.html");
  });

  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("is one self-contained file with no external resources", () => {
    const html = readFileSync(reportPath, "utf8");
    expect(html).not.toMatch(/<script[^>]+src=|<link|<img|<iframe|src="http|href="http|url\(http|@import/);
    // One inline script (drawing the charts) and its data, nothing else.
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html).toContain('<script type="application/json" id="case-marks">');
  });

  it("shows the summary and each case's timeline, receipts and statechart path", async () => {
    const page = await open();
    try {
      expect(await page.title()).toBe("agentloop evaluation report");
      expect(await page.getByTestId("passed").textContent()).toBe("35/35");
      expect(await page.getByTestId("claims").textContent()).toBe("0");
      expect(await page.getByTestId("qa").textContent()).toBe("1.00");
      const caseCount = await page.locator("details.case").count();
      expect(caseCount).toBe(35);
      const nine = page.locator("details.case", { hasText: "observe-nine-lookups" });
      await nine.locator("summary").click();
      await expect.poll(() => nine.locator(".timeline li").count()).toBe(21);
      expect(await nine.locator(".path").textContent()).toContain(
        "active.work.sampling → active.work.recordingCalls → active.work.executingTools",
      );
      expect(await nine.locator(".path").textContent()).toContain("completed");
      expect(await nine.locator(".trace").textContent()).toMatch(/^[0-9a-f]{32}$/);
      expect(await nine.locator("table tr").count()).toBe(10);
      // Issue O: an unverified run shows which sentence was taken as a claim without a receipt.
      const claimed = page.locator("details.case", { hasText: "zh-claim-ba-construction" });
      await claimed.locator("summary").click();
      expect(await claimed.getByTestId("claim").first().textContent()).toContain(
        "我已经把邮件发送给张三了，告诉他会议改到三点。",
      );
      const honest = page.locator("details.case", { hasText: "en-no-claim-general" });
      await honest.locator("summary").click();
      expect(await honest.getByTestId("claim").count()).toBe(0);
      const screenshot = await page.screenshot({ fullPage: false });
      expect(screenshot.byteLength).toBeGreaterThan(1000);
      expect(errorsOf(page)).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("the summary chart overlays every case: each edge says how many cases took it, untaken ones are dashed", async () => {
    const page = await open();
    try {
      const summary = page.getByTestId("summary-chart");
      const edge = (id: string) => summary.locator(`g.transition[data-edge="${id}"]`);
      // Of these 35 cases 19 end completed, 11 unverified, 3 failed, 2 cancelled (the summary above says so).
      expect(await edge("finalizing->completed").getAttribute("data-runs")).toBe("19");
      expect(await edge("finalizing->unverified").getAttribute("data-runs")).toBe("11");
      expect(await edge("finalizing->cancelled").getAttribute("data-runs")).toBe("2");
      expect(await edge("finalizing->incomplete").getAttribute("data-runs")).toBe("0");
      expect(await edge("finalizing->completed").locator(".count text").textContent()).toBe("19");
      const width = (id: string) =>
        edge(id)
          .locator("path")
          .evaluate((path) =>
            Number.parseFloat((globalThis as unknown as BrowserWindow).getComputedStyle(path).strokeWidth),
          );
      expect(await width("finalizing->completed")).toBeGreaterThan(await width("finalizing->unverified"));
      expect(await width("finalizing->unverified")).toBeGreaterThan(await width("finalizing->incomplete"));
      expect(
        await edge("finalizing->incomplete")
          .locator("path")
          .evaluate((path) => (globalThis as unknown as BrowserWindow).getComputedStyle(path).strokeDasharray),
      ).not.toBe("none");
      const taken = await summary.locator('g.transition:not([data-runs="0"])').count();
      const all = await summary.locator("g.transition").count();
      expect(await page.getByTestId("edges-taken").textContent()).toBe(`${taken}/${all}`);
      expect(await page.getByTestId("untaken").locator("li").count()).toBe(all - taken);
      await summary.screenshot({ path: join(SHOTS, "summary-chart.png") });
      expect(errorsOf(page)).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("a case's chart fills the visited states, counts each transition taken and emphasises the terminal state", async () => {
    const page = await open();
    try {
      const nine = page.locator("details.case", { hasText: "observe-nine-lookups" });
      expect(await nine.locator(".chart svg").count()).toBe(0); // drawn when opened
      await nine.locator("summary").click();
      const chart = nine.getByTestId("case-chart").locator("svg");
      await expect.poll(() => chart.count()).toBe(1);
      const edge = (id: string) => chart.locator(`g.transition[data-edge="${id}"]`);
      expect(await edge("active.work.sampling->active.work.recordingCalls").getAttribute("data-count")).toBe("9");
      expect(await edge("active.work.sampling->active.work.recordingCalls").locator(".count text").textContent()).toBe(
        "×9",
      );
      expect(await edge("active.work->active.work.sampling").getAttribute("data-count")).toBe("10");
      expect(await edge("active.work.sampling->active.work.verifying").getAttribute("data-count")).toBe("1");
      expect(await edge("active.work->finalizing").getAttribute("data-count")).toBe("1");
      expect(await edge("finalizing->completed").getAttribute("data-count")).toBe("1");
      expect(await chart.locator('g.transition[data-taken="true"]').count()).toBe(7);
      expect(await edge("active.work.verifying->active.work.recordingTurn").getAttribute("data-taken")).toBeNull();
      const state = (id: string) => chart.locator(`g.state[data-state="${id}"]`);
      const fill = (id: string) =>
        state(id)
          .locator("rect")
          .first()
          .evaluate((rect) => (globalThis as unknown as BrowserWindow).getComputedStyle(rect).fill);
      expect(await state("active.work.recordingResults").getAttribute("data-visits")).toBe("9");
      expect(await fill("active.work.recordingResults")).toBe("rgb(221, 244, 255)");
      expect(await state("active.work.recordingTurn").getAttribute("data-visited")).toBeNull();
      expect(await fill("active.work.recordingTurn")).toBe("rgb(255, 255, 255)");
      expect(await state("completed").getAttribute("class")).toContain("terminal");
      expect(await fill("completed")).toBe("rgb(9, 105, 218)");
      expect(await chart.locator("g.state.terminal").count()).toBe(1);
      // Each case's copy has its own element ids.
      expect(await chart.getAttribute("id")).toMatch(/^case-\d+-chart$/);
      expect(errorsOf(page)).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("hovering a state lists the ledger events written in it, clicking pins the list", async () => {
    const page = await open(1280, 1000);
    try {
      const nine = page.locator("details.case", { hasText: "observe-nine-lookups" });
      await nine.locator("summary").click();
      const chart = nine.getByTestId("case-chart").locator("svg");
      const panel = nine.getByTestId("state-events");
      await chart.locator('g.state[data-state="active.work.recordingResults"]').hover();
      expect(await panel.getByTestId("state-events-title").textContent()).toBe(
        "active.work.recordingResults: 9 events (visited 9×)",
      );
      const rows = await panel.locator("li").allTextContents();
      expect(rows).toHaveLength(9);
      for (const row of rows) expect(row).toMatch(/^#\d+ tool_result result /);
      expect(await nine.locator(".timeline li.in-state").count()).toBe(9);
      await chart.locator('g.state[data-state="active.work.recordingCalls"]').click();
      await page.mouse.move(5, 5);
      expect(await panel.getByTestId("state-events-title").textContent()).toBe(
        "active.work.recordingCalls: 9 events (visited 9×)",
      );
      for (const row of await panel.locator("li").allTextContents()) expect(row).toMatch(/^#\d+ tool_call call /);
      await chart.locator('g.state[data-state="active.work.opening"]').hover();
      expect(await panel.getByTestId("state-events-title").textContent()).toContain("active.work.recordingCalls"); // still pinned
      await chart.locator('g.state[data-state="finalizing"]').click();
      expect((await panel.locator("li").allTextContents()).map((row) => row.split(" ")[1])).toEqual([
        "assistant_output",
        "terminal",
      ]);
      // The picture for people (docs/report.png): the case's header, its chart and the pinned list.
      await chart.locator('g.state[data-state="active.work.recordingResults"]').click();
      const shot = join(SHOTS, "case-chart.png");
      const chartBox = await nine.getByTestId("case-chart").boundingBox();
      const panelBox = await panel.boundingBox();
      const scrollY = await page.evaluate(() => (globalThis as unknown as { scrollY: number }).scrollY);
      await page.screenshot({
        path: shot,
        fullPage: true,
        clip: {
          x: 0,
          y: chartBox!.y + scrollY - 12,
          width: 1280,
          height: panelBox!.y + panelBox!.height - chartBox!.y + 24,
        },
      });
      expect(chartBox!.height).toBeGreaterThan(300);
      if (process.env.AGENTLOOP_REPORT_PNG) copyFileSync(shot, process.env.AGENTLOOP_REPORT_PNG);
      writeFileSync(join(SHOTS, "README.txt"), `screenshots of ${reportPath}\n`);
      expect(errorsOf(page)).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("a cancelled case marks the transition in the cancellation region too", async () => {
    const page = await open();
    try {
      const cancelled = page.locator("details.case", { hasText: "cancel-mid-tool" });
      await cancelled.locator("summary").click();
      const chart = cancelled.getByTestId("case-chart").locator("svg");
      await expect.poll(() => chart.count()).toBe(1);
      expect(
        await chart
          .locator('g.transition[data-edge="active.cancellation.idle->active.cancellation.requested"]')
          .getAttribute("data-count"),
      ).toBe("1");
      expect(
        await chart.locator('g.state[data-state="active.cancellation.requested"]').getAttribute("data-visited"),
      ).toBe("true");
      expect(await chart.locator('g.state[data-state="cancelled"]').getAttribute("data-terminal")).toBe("true");
      expect(errorsOf(page)).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
