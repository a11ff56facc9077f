import { mkdtempSync, rmSync } from "node:fs";
import { type IncomingMessage, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readLedger } from "../../../src/cli/readLedger.js";
import type { LedgerChanges } from "../../../src/host/serve/ledgerChanges.js";
import { type ServeHandle, startServe } from "../../../src/host/serve/server.js";
import { AgentRuntime } from "../../../src/runtime/AgentRuntime.js";
import { scriptedProvider } from "../../../src/services/providers/scripted.js";
import { callStep, FAST_RETRY, lookupTool, textStep } from "../../support/runtimeHarness.js";

/** The live streams of the serve app, while a real runtime writes the same SQLite ledger. */

let dir: string;
let runtime: AgentRuntime;
let serve: ServeHandle;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "agentloop-serve-live-"));
  const db = join(dir, "ledger.db");
  runtime = await AgentRuntime.make({ database: db, retry: FAST_RETRY });
  serve = await startServe({ read: (effect) => readLedger(db, effect), dbLabel: db, port: 0, pollIntervalMs: 50 });
});

afterEach(async () => {
  await serve.close();
  await runtime.dispose();
  rmSync(dir, { recursive: true, force: true });
});

interface Frame {
  readonly event?: string;
  readonly id?: string;
  readonly data: string;
}

/** An SSE client: frames as they arrive, until `close`. */
function subscribe(path: string) {
  const frames: Frame[] = [];
  let response: IncomingMessage | undefined;
  let buffer = "";
  const req = request(new URL(path, serve.url), (res) => {
    response = res;
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      buffer += chunk;
      let end = buffer.indexOf("\n\n");
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = Object.fromEntries(
          block
            .split("\n")
            .filter((line) => !line.startsWith(":") && line.includes(":"))
            .map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trimStart()]),
        );
        if (fields.data !== undefined) frames.push(fields as unknown as Frame);
        end = buffer.indexOf("\n\n");
      }
    });
  });
  req.end();
  return {
    frames,
    contentType: () => response?.headers["content-type"],
    ended: () => response?.complete === true,
    close: () => req.destroy(),
  };
}

const until = async (check: () => boolean, what: string, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe("the serve app's live streams", () => {
  it("says the ledger changed when a run starts and when it ends", async () => {
    const stream = subscribe("/api/stream");
    try {
      await until(() => stream.frames.length === 1, "the first ledger frame");
      expect(stream.contentType()).toBe("text/event-stream; charset=utf-8");
      expect(stream.frames[0]).toEqual({ event: "ledger", data: JSON.stringify({ signature: "0/0/0" }) });
      const handle = runtime.startRun({
        sessionId: "live",
        input: "look",
        provider: scriptedProvider([callStep("c1", "lookup"), textStep("done")]),
        tools: [lookupTool({ outcomes: [{ status: "ok", output: { value: 1 }, delayMs: 400 }] })],
      });
      await until(
        () => stream.frames.some((frame) => JSON.parse(frame.data).signature.startsWith("1/1/")),
        "a running run",
      );
      await handle.result;
      await until(() => stream.frames.some((frame) => JSON.parse(frame.data).signature.startsWith("1/0/")), "its end");
      const signatures = stream.frames.map((frame) => JSON.parse(frame.data).signature as string);
      expect(new Set(signatures).size).toBe(signatures.length);
    } finally {
      stream.close();
    }
  });

  it("streams a running run's events on its own SSE channel up to done", async () => {
    const handle = runtime.startRun({
      sessionId: "live",
      input: "look",
      provider: scriptedProvider([callStep("c1", "lookup"), textStep("done")]),
      tools: [lookupTool({ outcomes: [{ status: "ok", output: { value: 1 }, delayMs: 300 }] })],
    });
    const stream = subscribe(`/runs/${encodeURIComponent(handle.runId)}/events`);
    try {
      await until(() => stream.ended(), "the stream to end");
      const types = stream.frames.map((frame) => JSON.parse(frame.data).type);
      expect(types).toEqual(["tool_call", "tool_started", "tool_result", "final", "done"]);
      expect(JSON.parse(stream.frames.at(-1)!.data).terminalState).toBe((await handle.result).terminalState);
    } finally {
      stream.close();
    }
  });

  it("the page of a running run already shows where it is, then its terminal state", async () => {
    const handle = runtime.startRun({
      sessionId: "live",
      input: "look",
      provider: scriptedProvider([callStep("c1", "lookup"), textStep("done")]),
      tools: [lookupTool({ outcomes: [{ status: "ok", output: { value: 1 }, delayMs: 500 }] })],
    });
    const fragment = async () => {
      const reply = await fetch(new URL(`/fragments/runs/${encodeURIComponent(handle.runId)}`, serve.url));
      return reply.text();
    };
    let running = "";
    const deadline = Date.now() + 5_000;
    while (!running.includes(">executingTools<") && Date.now() < deadline) running = await fragment();
    expect(running).toContain('data-state="running"');
    expect(running).toContain('data-testid="current">executingTools<');
    await handle.result;
    const closed = await fragment();
    expect(closed).toContain('data-testid="run-state">completed<');
    expect(closed).not.toContain('data-testid="current"');
  });

  it("where the ledger announces its changes, reads only on an announcement: none while idle", async () => {
    // The announcements a PostgreSQL ledger makes (test/cli/serve.postgres.test.ts), made by hand here.
    const listeners = new Set<(runId: string | undefined) => void>();
    const changes: LedgerChanges = {
      subscribe: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
    let reads = 0;
    const db = join(dir, "ledger.db");
    await serve.close();
    serve = await startServe({
      read: (effect) => {
        reads += 1;
        return readLedger(db, effect);
      },
      dbLabel: db,
      port: 0,
      pollIntervalMs: 50,
      changes,
    });
    const stream = subscribe("/api/stream");
    try {
      await until(() => stream.frames.length === 1, "the first ledger frame");
      await runtime.startRun({ sessionId: "live", input: "hi", provider: scriptedProvider([textStep("done")]) }).result;
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(reads).toBe(1);
      expect(stream.frames).toHaveLength(1);
      for (const listener of listeners) listener(undefined);
      await until(() => stream.frames.length === 2, "the frame after the announcement");
      expect(JSON.parse(stream.frames[1]!.data).signature).toMatch(/^1\/0\//);
      expect(reads).toBe(2);
    } finally {
      stream.close();
    }
  });
});
