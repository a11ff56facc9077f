import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readLedger } from "../../../src/cli/readLedger.js";
import { RUN_STATUSES } from "../../../src/host/serve/ledgerViews.js";
import { type ServeHandle, startServe } from "../../../src/host/serve/server.js";
import { AgentRuntime } from "../../../src/runtime/AgentRuntime.js";
import { scriptedProvider } from "../../../src/services/providers/scripted.js";
import { callStep, FAST_RETRY, lookupTool, textStep } from "../../support/runtimeHarness.js";

/**
 * What `agentloop serve` answers to any query string a browser or a script can send: every
 * parameter of every route, fuzzed, over real HTTP against a real ledger. A value the server
 * cannot use is the client's mistake (4xx naming the parameter), never a 500.
 */

let dir: string;
let runtime: AgentRuntime;
let serve: ServeHandle;
let runId: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agentloop-serve-input-"));
  const db = join(dir, "ledger.db");
  runtime = await AgentRuntime.make({ database: db, retry: FAST_RETRY });
  const result = await runtime.startRun({
    sessionId: "s-input",
    input: "look it up",
    provider: scriptedProvider([callStep("c1", "lookup", { q: "a" }), textStep("Found it.")]),
    tools: [lookupTool()],
    contract: { evidenceMode: "observe", source: "caller" },
    maxSteps: 3,
  }).result;
  runId = result.runId;
  serve = await startServe({ read: (effect) => readLedger(db, effect), dbLabel: db, port: 0, pollIntervalMs: 50 });
}, 60_000);

afterAll(async () => {
  await serve?.close();
  await runtime?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

interface Reply {
  readonly status: number;
  readonly type: string;
  readonly body: string;
}

/**
 * GETs a raw request target (sent as it is, not re-encoded). A stream's body never ends, so a
 * `text/event-stream` reply is read up to its headers and closed.
 */
function get(target: string): Promise<Reply> {
  const { hostname, port } = new URL(serve.url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path: target, method: "GET" }, (response) => {
      const type = String(response.headers["content-type"] ?? "");
      if (type.startsWith("text/event-stream")) {
        resolve({ status: response.statusCode ?? 0, type, body: "" });
        req.destroy();
        return;
      }
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => {
        body += chunk;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, type, body }));
    });
    req.on("error", (error) => {
      // The stream's socket is destroyed on purpose once its status is known.
      if ((error as NodeJS.ErrnoException).code !== "ECONNRESET") reject(error);
    });
    req.end();
  });
}

const WINDOW_ROUTES = ["/metrics", "/fragments/metrics", "/api/metrics", "/metrics.txt"];

describe("agentloop serve answers input it cannot use with 400", () => {
  it("answers 400 naming the run id when it is not valid URI encoding, on the run's event stream too", async () => {
    for (const path of ["/runs/%/events", "/api/runs/%E0%A4%A", "/runs/%zz"]) {
      expect((await get(path)).status, path).toBe(400);
    }
  });

  it("answers 400 naming the window for one too large to date on every metrics route", async () => {
    for (const path of WINDOW_ROUTES) {
      const reply = await get(`${path}?window=999999999999999d`);
      expect(reply.status, path).toBe(400);
      expect(reply.body, path).toContain("window must be at most 36500d");
      expect(reply.body, path).not.toContain("Invalid time value");
    }
  });
});

/** Values a person, a script or an attacker may put in a query: text, numbers, dates, durations, junk. */
const valueArb = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.constantFrom(
    ...RUN_STATUSES,
    "",
    " ",
    "0",
    "-1",
    "1e400",
    "Infinity",
    "NaN",
    "0x10",
    "999999999999999d",
    "275760-09-13T00:00:00.001Z",
    "-271821-04-20",
    "2026-02-30",
    "max_steps_reached",
    "%",
    "%zz",
    "%E0%A4%A",
    "\u0000",
    "\uD800",
  ),
  fc
    .tuple(
      fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String), fc.double().map(String)),
      fc.constantFrom("", "s", "m", "h", "d", "w", " d", "y"),
    )
    .map(([amount, unit]) => `${amount}${unit}`),
  fc.date({ noInvalidDate: false }).map((date) => (Number.isNaN(date.getTime()) ? "not a date" : date.toISOString())),
  fc.integer().map(String),
);

/** A query: the route's own parameters (some repeated), unknown ones, and now and then raw, undecodable text. */
const queryArb = (names: ReadonlyArray<string>) =>
  fc.oneof(
    fc
      .array(fc.tuple(fc.oneof(fc.constantFrom(...names, "lastEventId"), fc.string()), valueArb), { maxLength: 6 })
      .map((pairs) => new URLSearchParams(pairs).toString()),
    fc
      .string({ unit: fc.constantFrom("%", "&", "=", "+", "a", "1", "d", "E", "F", "0", "\u00e9", "\u4e2d", " ") })
      .map((raw) => encodeURI(raw).replaceAll("%25", "%")),
  );

/** Stands for the id of the ledger's run, known only once the run has been made. */
const RUN_ID = "{run}";

/** A path segment where a run id goes: the run that exists, ids that do not, and bytes that do not decode. */
const runIdArb = fc.oneof(
  fc.constant(RUN_ID),
  fc.string().map((text) => encodeURIComponent(text)),
  fc
    .string({ unit: fc.constantFrom("%", "a", "F", "0", "\u00e9", ".", "~") })
    .map((raw) => encodeURI(raw).replaceAll("%25", "%") || "x"),
);

const RUNS_PARAMETERS = ["state", "reason", "session", "since", "until", "limit"];

/** A request target for every route the server has, with a fuzzed query (and run id). */
const targetArb = fc.oneof(
  fc
    .tuple(fc.constantFrom("/", "/fragments/runs", "/api/runs"), queryArb(RUNS_PARAMETERS))
    .map(([path, query]) => `${path}?${query}`),
  fc.tuple(fc.constantFrom(...WINDOW_ROUTES), queryArb(["window"])).map(([path, query]) => `${path}?${query}`),
  fc
    .tuple(
      fc.constantFrom("/runs/", "/api/runs/", "/fragments/runs/"),
      runIdArb,
      fc.constantFrom("", "/"),
      queryArb(RUNS_PARAMETERS),
    )
    .map(([prefix, id, slash, query]) => `${prefix}${id}${slash}?${query}`),
  fc.tuple(runIdArb, queryArb(["lastEventId"])).map(([id, query]) => `/runs/${id}/events?${query}`),
  fc
    .tuple(fc.constantFrom("/api/stream", "/app.js", "/nowhere", "/api/nowhere"), queryArb(RUNS_PARAMETERS))
    .map(([path, query]) => `${path}?${query}`),
);

describe("agentloop serve never answers 500 to input", () => {
  it("answers every query parameter of every route with a status below 500", async () => {
    await fc.assert(
      fc.asyncProperty(targetArb, async (target) => {
        const path = target.replace(RUN_ID, runId);
        const reply = await get(path);
        expect(reply.status, path).toBeLessThan(500);
        if (reply.status === 400 && reply.type.startsWith("application/json")) {
          expect(typeof JSON.parse(reply.body).error, path).toBe("string");
        }
      }),
      { numRuns: 300 },
    );
  }, 120_000);
});
