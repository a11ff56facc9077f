import { describe, expect, it } from "vitest";
import { z } from "zod";
import { main } from "../../src/cli/main.js";
import type { CliIO } from "../../src/cli/output.js";
import { serveCommand } from "../../src/cli/serveImpl.js";
import { ledgerRowToLoopEvents } from "../../src/host/channels/sse.js";
import { AgentRuntime } from "../../src/runtime/AgentRuntime.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { defineTool } from "../../src/services/tools/Tool.js";
import { freshPostgresDatabase, noticePostgresSkipped, PG_URL } from "../support/backends.js";
import { callStep, textStep } from "../support/runtimeHarness.js";

/**
 * `agentloop serve --db postgres://…`: the same pages and live signature through its
 * read-only pool. Skipped with a notice when the tests have no PostgreSQL server.
 */

noticePostgresSkipped();

const quiet: CliIO = { out: () => undefined, err: () => undefined, isTTY: false };

/** `agentloop serve` on `db` until `stop` aborts: its address, and the command's exit. */
async function serving(db: string, poll: string, stop: AbortSignal) {
  const lines: string[] = [];
  const io: CliIO = { out: (line) => lines.push(line), err: (line) => lines.push(line), isTTY: false };
  const served = serveCommand(io, { db, port: "0", host: "127.0.0.1", poll }, stop);
  const deadline = Date.now() + 10_000;
  while (!lines.some((line) => line.includes("http://")) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { url: /(http:\/\/127\.0\.0\.1:\d+)\//.exec(lines.join("\n"))![1]!, served };
}

/** Reads SSE frames from `response` as they come; `next()` resolves with the next whole frame, undefined at the end. */
function frames(response: Response) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  return {
    next: async (): Promise<string | undefined> => {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (!frame.startsWith(":")) return frame;
          continue;
        }
        const chunk = await reader.read();
        if (chunk.done) return undefined;
        buffer += decoder.decode(chunk.value, { stream: true });
      }
    },
    cancel: () => reader.cancel(),
  };
}

describe.skipIf(!PG_URL)("agentloop serve on a PostgreSQL ledger", () => {
  it("lists the runs, shows a run with its path and answers the live stream", async () => {
    const db = await freshPostgresDatabase();
    expect(await main(["migrate", "--db", db], quiet)).toBe(0);
    expect(await main(["eval", "eval/01-answers.json", "--db", db], quiet)).toBe(0);
    const lines: string[] = [];
    const stop = new AbortController();
    const io: CliIO = { out: (line) => lines.push(line), err: (line) => lines.push(line), isTTY: false };
    const served = serveCommand(io, { db, port: "0", host: "127.0.0.1", poll: "50" }, stop.signal);
    const deadline = Date.now() + 10_000;
    while (!lines.some((line) => line.includes("http://")) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const url = /(http:\/\/127\.0\.0\.1:\d+)\//.exec(lines.join("\n"))![1]!;
    try {
      const runs = (await (await fetch(`${url}/api/runs?state=completed`)).json()) as Array<{ runId: string }>;
      expect(runs.length).toBeGreaterThan(0);
      const page = await (await fetch(`${url}/runs/${runs[0]!.runId}`)).text();
      expect(page).toContain('data-testid="path">opening → sampling');
      expect((await fetch(`${url}/api/metrics?window=1d`)).status).toBe(200);
      const stream = await fetch(`${url}/api/stream`);
      const reader = stream.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      expect(first).toMatch(/^event: ledger\ndata: \{"signature":"\d+\/0\/\d+"\}/);
      await reader.cancel();
    } finally {
      stop.abort();
    }
    expect(await served).toBe(0);
    expect(lines.at(-1)).toBe("agentloop serve: stopped");
  }, 60_000);

  it("follows a run another runtime drives through the ledger's announcements, with a poll a minute away", async () => {
    const db = await freshPostgresDatabase();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const runtime = await AgentRuntime.make({ database: db });
    const stop = new AbortController();
    try {
      const gated = defineTool({
        name: "lookup",
        description: "Looks an order up.",
        kind: "observe",
        input: z.object({ order: z.string() }),
        execute: async () => {
          await gate;
          return { status: "ok", output: "shipped" };
        },
      });
      const handle = runtime.startRun({
        sessionId: "s",
        input: "Where is order 7?",
        tools: [gated],
        provider: scriptedProvider([
          callStep("c1", "lookup", { order: "7" }),
          callStep("c2", "lookup", { order: "8" }),
          textStep("Both have shipped."),
        ]),
      });
      for await (const event of handle.events) if (event.type === "tool_started") break;
      const { url, served } = await serving(db, "60000", stop.signal);
      const ledger = frames(await fetch(`${url}/api/stream`));
      const before = await ledger.next();
      const run = frames(await fetch(`${url}/runs/${handle.runId}/events`));
      expect(await run.next()).toMatch(/"type":"tool_call"/);
      release();
      const received: string[] = [];
      for (let frame = await run.next(); frame !== undefined; frame = await run.next()) received.push(frame);
      expect((await handle.result).terminalState).toBe("completed");
      // Every row after the first call's start, once and in order: what the ledger itself holds.
      const rows = await runtime.ledger.listEvents(handle.runId);
      const receipts = await runtime.ledger.listReceipts(handle.runId);
      const record = (await runtime.ledger.getRun(handle.runId))!;
      const expected = rows
        .flatMap((row) => ledgerRowToLoopEvents(record, row, receipts).map((event) => ({ id: row.sequence, event })))
        .slice(1)
        .map(({ id, event }) => `id: ${id}\ndata: ${JSON.stringify(event)}`);
      // Ledger rows carry their sequence as the frame id; a call's start (from its start record,
      // not a row) comes without one, once per call.
      expect(received.filter((frame) => frame.startsWith("id: "))).toEqual(expected);
      const starts = received.filter((frame) => !frame.startsWith("id: ")).map((frame) => JSON.parse(frame.slice(6)));
      expect(starts.map((event) => [event.type, event.callId])).toEqual([
        ["tool_started", "c1"],
        ["tool_started", "c2"],
      ]);
      // The page's stream says the ledger changed, though its poll is a minute away.
      expect(await ledger.next()).not.toBe(before);
      await ledger.cancel();
      stop.abort();
      expect(await served).toBe(0);
    } finally {
      release();
      stop.abort();
      await runtime.dispose();
    }
  }, 60_000);
});
