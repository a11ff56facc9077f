import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { metricsCommand } from "../../../src/cli/observabilityImpl.js";
import { readLedger } from "../../../src/cli/readLedger.js";
import { type ServeHandle, startServe } from "../../../src/host/serve/server.js";
import { AgentRuntime } from "../../../src/runtime/AgentRuntime.js";
import { scriptedProvider } from "../../../src/services/providers/scripted.js";
import { callStep, FAST_RETRY, lookupTool, textStep } from "../../support/runtimeHarness.js";

/**
 * The serve app over a real SQLite ledger written by a real runtime, read the way
 * `agentloop serve` reads it (cli/readLedger: a read-only connection per read), over real HTTP.
 */

const XSS = `<script>window.__xss=1</script><img src=x onerror="window.__xss=2">"'&`;

let dir: string;
let db: string;
let runtime: AgentRuntime;
let serve: ServeHandle;
const runIds: Record<string, string> = {};

async function runOnce(name: string, sessionId: string, input: string, steps: Parameters<typeof scriptedProvider>[0]) {
  const handle = runtime.startRun({
    sessionId,
    input,
    provider: scriptedProvider(steps),
    tools: [lookupTool({ outcomes: [{ status: "ok", output: { value: XSS } }] })],
    contract: { evidenceMode: "observe", source: "caller" },
    maxSteps: 3,
  });
  const result = await handle.result;
  runIds[name] = result.runId;
  return result;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agentloop-serve-"));
  db = join(dir, "ledger.db");
  runtime = await AgentRuntime.make({ database: db, retry: FAST_RETRY });
  await runOnce("observed", "s-tools", `look it up ${XSS}`, [
    callStep("c1", "lookup", { q: XSS }),
    textStep("Found it."),
  ]);
  await runOnce("looping", "s-loop", "loop", [
    callStep("c1", "lookup"),
    callStep("c2", "lookup", { q: "b" }),
    callStep("c3", "lookup", { q: "c" }),
    textStep("never reached"),
  ]);
  await runOnce("xss-session", `${XSS}`, "hello", [textStep(`answer ${XSS}`)]);
  // Three runs whose provider finishes for tools without a call, twice: the protocol alert fires.
  const broken = { finishReason: "tool_calls" as const };
  for (const index of [1, 2, 3]) await runOnce(`broken-${index}`, "s-broken", "go", [broken, broken]);
  serve = await startServe({ read: (effect) => readLedger(db, effect), dbLabel: db, port: 0, pollIntervalMs: 50 });
}, 60_000);

afterAll(async () => {
  await serve?.close();
  await runtime?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

function get(path: string, options: { method?: string; host?: string } = {}): Promise<Reply> {
  const url = new URL(path, serve.url);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? "GET", headers: options.host ? { host: options.host } : {} },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => {
          body += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

const json = async (path: string) => JSON.parse((await get(path)).body);

describe("agentloop serve's pages and API over a real ledger", () => {
  it("lists every run newest first", async () => {
    const runs = await json("/api/runs");
    expect(runs.map((run: { runId: string }) => run.runId)).toEqual([
      runIds["broken-3"],
      runIds["broken-2"],
      runIds["broken-1"],
      runIds["xss-session"],
      runIds.looping,
      runIds.observed,
    ]);
  });

  it("filters the runs by state, reason, session and start time", async () => {
    const ids = async (query: string) => (await json(`/api/runs?${query}`)).map((run: { runId: string }) => run.runId);
    expect(await ids("state=incomplete")).toEqual([runIds.looping]);
    expect(await ids("reason=max_steps_reached")).toEqual([runIds.looping]);
    expect(await ids("session=s-tools")).toEqual([runIds.observed]);
    expect(await ids("since=2999-01-01")).toEqual([]);
    expect(await ids("until=2000-01-01")).toEqual([]);
    expect((await ids("since=2000-01-01&limit=2")).length).toBe(2);
  });

  it("answers a filter that cannot be meant with 400 and one line", async () => {
    const page = await get("/?state=bogus");
    expect(page.status).toBe(400);
    expect(page.body).toContain("state must be one of running, completed");
    const api = await get("/api/runs?since=yesterday");
    expect(api.status).toBe(400);
    expect(JSON.parse(api.body).error).toBe('since must be an ISO date or time (got "yesterday")');
  });

  it("shows a run's trace id, timeline, receipts and its path on the chart", async () => {
    const detail = await json(`/api/runs/${runIds.observed}`);
    const page = await get(`/runs/${runIds.observed}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`data-testid="trace-id">${detail.run.traceId}<`);
    expect(page.body.match(/<li data-sequence=/g)?.length).toBe(detail.events.length);
    expect(page.body).toContain('<tr data-call-id="c1">');
    expect(page.body).toMatch(/data-state="active\.work\.executingTools"[^>]*data-visited="true"/);
    expect(page.body).toMatch(
      /class="state final terminal"[^>]*data-state="completed"|data-state="completed"[^>]*data-terminal="true"/,
    );
    expect(page.body).toContain("opening → sampling → recordingCalls → executingTools → recordingResults");
  });

  it("answers an unknown run with 404", async () => {
    expect((await get("/runs/run_nope")).status).toBe(404);
    expect((await get("/api/runs/run_nope")).status).toBe(404);
  });

  it("escapes hostile ledger text everywhere it is shown", async () => {
    for (const path of ["/", `/runs/${runIds.observed}`, `/runs/${runIds["xss-session"]}`, "/fragments/runs"]) {
      const { body } = await get(path);
      expect(body).not.toContain("<script>window.__xss");
      expect(body).not.toContain("<img src=x");
      expect(body).not.toContain('onerror="window');
    }
    const { body } = await get(`/runs/${runIds["xss-session"]}`);
    expect(body).toContain("&lt;script&gt;window.__xss=1&lt;/script&gt;");
  });

  it("sends a policy that lets no inline script run", async () => {
    const { headers } = await get("/");
    expect(headers["content-security-policy"]).toContain("script-src 'self'");
    expect(headers["x-content-type-options"]).toBe("nosniff");
  });

  it("refuses anything but GET and HEAD: it is read-only", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
      const reply = await get("/api/runs", { method });
      expect(reply.status).toBe(405);
      expect(reply.headers.allow).toBe("GET, HEAD");
    }
  });

  it("answers HEAD like GET without a body, and a HEAD of a stream at once", async () => {
    const page = await get("/", { method: "HEAD" });
    expect(page.status).toBe(200);
    expect(page.body).toBe("");
    const stream = await get("/api/stream", { method: "HEAD" });
    expect(stream.status).toBe(200);
    expect(stream.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
  });

  it("answers only to loopback names while bound to loopback", async () => {
    expect((await get("/", { host: "attacker.example:80" })).status).toBe(421);
    expect((await get("/", { host: `localhost:${new URL(serve.url).port}` })).status).toBe(200);
  });

  it("shows the metrics and health alerts of agentloop metrics and health", async () => {
    const text = (await get("/metrics.txt")).body;
    const lines: string[] = [];
    await metricsCommand({ out: (line) => lines.push(line), err: () => undefined, isTTY: false }, { db });
    expect(text.trimEnd()).toBe(lines.join("\n"));
    expect(text).toContain('agent_runs_total{terminal_state="incomplete"} 1');
    const view = await json("/api/metrics?window=1d");
    expect(view.health.runs).toBe(6);
    expect(view.health.checks.map((check: { name: string }) => check.name)).toContain("ledger_write_failures");
    const page = await get("/metrics?window=1d");
    expect(page.body).toContain('data-check="unverified_ratio_jump" data-status="ok"');
    expect(page.body).toContain('data-check="provider_tool_protocol_invalid_spike" data-status="firing"');
    expect(page.body).toContain(`<a class="mono" href="/runs/${runIds["broken-1"]}">`);
    expect(page.body).toContain("agent_runs_total");
    expect((await get("/metrics?window=soon")).status).toBe(400);
  });
});
