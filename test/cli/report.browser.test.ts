import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
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

describe.skipIf(!hasChromium)("HTML evaluation report in headless Chromium", () => {
  let dir: string;
  let reportPath: string;

  beforeAll(async () => {
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

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("is one self-contained file with no external resources", () => {
    const html = readFileSync(reportPath, "utf8");
    expect(html).not.toMatch(/<script|<link|src="http|href="http/);
  });

  it("shows the summary and each case's timeline, receipts and statechart path", async () => {
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    try {
      const page = await browser.newPage();
      await page.goto(pathToFileURL(reportPath).href);
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
    } finally {
      await browser.close();
    }
  });
});
