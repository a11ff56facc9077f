import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CassetteModelStep } from "../../src/domain/index.js";
import { AgentRuntime } from "../../src/runtime/AgentRuntime.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { callStep, FAST_RETRY, lookupTool, textStep } from "../support/runtimeHarness.js";

/**
 * `agentloop serve` in headless Chromium: the real binary in a child process on a temp SQLite
 * ledger, while this process runs agent runs (scripted provider, a slow tool) against the same
 * file. The pages must show each run appear as running and reach its terminal state without a
 * reload. Screenshots go to a temp folder (printed); AGENTLOOP_UPDATE_SCREENSHOT=1 also copies the
 * run page's to docs/serve.png.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(
    `serve.browser.test: ${CHROMIUM} is absent, so the real-browser serve test is skipped (.ci/run installs it)`,
  );
}

const BIN = fileURLToPath(new URL("../../bin/agentloop.mjs", import.meta.url));
const DOCS_SCREENSHOT = fileURLToPath(new URL("../../docs/serve.png", import.meta.url));
const XSS = `<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>`;

let dir: string;
let shots: string;
let runtime: AgentRuntime;
let serve: ChildProcess;
let url: string;
let browser: Browser;

beforeAll(async () => {
  if (!hasChromium) return;
  dir = mkdtempSync(join(tmpdir(), "agentloop-serve-browser-"));
  shots = mkdtempSync(join(tmpdir(), "agentloop-serve-screenshots-"));
  const db = join(dir, "ledger.db");
  runtime = await AgentRuntime.make({ database: db, retry: FAST_RETRY });
  serve = spawn(process.execPath, [BIN, "serve", "--db", db, "--port", "0", "--poll", "100"], { stdio: "pipe" });
  url = await new Promise<string>((resolve, reject) => {
    let stdout = "";
    const timer = setTimeout(() => reject(new Error("serve did not start")), 20_000);
    serve.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /(http:\/\/127\.0\.0\.1:\d+)\//.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    serve.on("close", () => reject(new Error("serve exited")));
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-sync"],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  serve?.kill("SIGINT");
  await runtime?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (shots) console.info(`serve.browser.test: screenshots in ${shots}`);
});

/** A run that samples, calls a slow lookup twice, then answers: about three seconds of `running`. */
function startSlowRun(sessionId: string, input: string) {
  const slow = (step: CassetteModelStep): CassetteModelStep => ({ ...step, delayMs: 250 });
  return runtime.startRun({
    sessionId,
    input,
    provider: scriptedProvider([
      slow(callStep("c1", "lookup", { q: "status page" })),
      slow(callStep("c2", "lookup", { q: "incident log" })),
      slow(textStep("The status page is https://status.example.com and the incident log is clean.")),
    ]),
    tools: [lookupTool({ outcomes: [{ status: "ok", output: { value: XSS }, delayMs: 1200 }] })],
    contract: { evidenceMode: "observe", source: "caller" },
  });
}

async function openPage(path: string, check?: (page: Page) => Promise<void>): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 960 } });
  await page.goto(`${url}${path}`);
  await check?.(page);
  await expect.poll(() => page.getByTestId("live").textContent(), { timeout: 10_000 }).toBe("live");
  // Set once: it is still there at the end only if the page was never reloaded.
  await page.evaluate("window.__sameDocument = true");
  return page;
}

// Evaluated in the page (strings: this project's types have no DOM).
const sameDocument = (page: Page) => page.evaluate("window.__sameDocument === true");
const xssRan = (page: Page) => page.evaluate("window.__xss !== undefined");

describe.skipIf(!hasChromium)("agentloop serve in headless Chromium", () => {
  it("shows a new run in the list as running, then in its terminal state, without a reload", async () => {
    const page = await openPage("/");
    expect(await page.getByTestId("runs").textContent()).toContain("no runs match");
    const handle = startSlowRun("browser-list", `check the status page ${XSS}`);
    const row = page.locator(`tr[data-run-id="${handle.runId}"]`);
    await expect.poll(() => row.getAttribute("data-state"), { timeout: 10_000 }).toBe("running");
    await page.screenshot({ path: join(shots, "runs-running.png") });
    const result = await handle.result;
    expect(result.terminalState).toBe("completed");
    await expect.poll(() => row.getAttribute("data-state"), { timeout: 10_000 }).toBe("completed");
    expect(await row.locator("td").nth(2).textContent()).toBe(result.terminalReason);
    expect(await sameDocument(page)).toBe(true);
    await page.screenshot({ path: join(shots, "runs-done.png") });
    await page.close();
  }, 60_000);

  it("follows a running run's page: timeline and chart move, then the terminal state", async () => {
    const handle = startSlowRun("browser-run", `look up the status page ${XSS}`);
    // As served, before the live script has done anything.
    const page = await openPage(`/runs/${encodeURIComponent(handle.runId)}`, async (loaded) => {
      expect(await loaded.getByTestId("run-state").textContent()).toBe("running");
    });
    await expect.poll(() => page.getByTestId("current").textContent(), { timeout: 10_000 }).toBe("executingTools");
    await page.screenshot({ path: join(shots, "run-running.png") });
    const result = await handle.result;
    await expect.poll(() => page.getByTestId("run-state").textContent(), { timeout: 10_000 }).toBe("completed");
    expect(await page.getByTestId("trace-id").textContent()).toBe(result.traceId);
    expect(await page.locator("[data-testid=timeline] li").count()).toBe(7);
    expect(await page.locator("[data-testid=receipts] tbody tr").count()).toBe(2);
    const chart = page.getByTestId("chart");
    expect(await chart.locator('[data-state="completed"]').getAttribute("data-terminal")).toBe("true");
    expect(
      await chart
        .locator('[data-edge="active.work.recordingCalls->active.work.executingTools"]')
        .getAttribute("data-count"),
    ).toBe("2");
    expect(await page.getByTestId("path").textContent()).toContain("verifying → finalizing → completed");
    expect(await sameDocument(page)).toBe(true);
    // The tool output is the hostile payload: shown as text, never run.
    expect(await page.locator("[data-testid=timeline]").textContent()).toContain(
      '<img src=x onerror="window.__xss=1">',
    );
    expect(await xssRan(page)).toBe(false);
    const shot = join(shots, "run-done.png");
    await page.screenshot({ path: shot });
    if (process.env.AGENTLOOP_UPDATE_SCREENSHOT === "1") {
      mkdirSync(join(DOCS_SCREENSHOT, ".."), { recursive: true });
      copyFileSync(shot, DOCS_SCREENSHOT);
    }
    await page.close();
  }, 60_000);

  it("shows the metrics and the health checks", async () => {
    const page = await openPage("/metrics?window=1d");
    await expect.poll(() => page.locator("[data-testid=health] tr[data-check]").count(), { timeout: 10_000 }).toBe(5);
    expect(await page.locator("[data-testid=metrics]").textContent()).toContain("agent_runs_total");
    await page.screenshot({ path: join(shots, "metrics.png") });
    await page.close();
  }, 30_000);
});
