import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Effect } from "effect";
import { afterEach, describe, expect, it } from "vitest";
import type { LoopEvent } from "../../../src/domain/index.js";
import { ledgerRowToLoopEvents, sseHandler } from "../../../src/host/channels/sse.js";
import { AgentRunStore } from "../../../src/persistence/AgentRunStore.js";
import type { AgentRuntime, RunHandle } from "../../../src/runtime/AgentRuntime.js";
import { scriptedProvider } from "../../../src/services/providers/scripted.js";
import { callStep, lookupTool, textStep, useRuntimeHarness } from "../../support/runtimeHarness.js";

/**
 * The SSE handler against a real runtime on a temp SQLite file, read by a real `fetch` stream
 * client on 127.0.0.1 (issue G).
 */

const harness = useRuntimeHarness("agentloop-sse-");
let servers: Server[] = [];
afterEach(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  servers = [];
});

async function serve(runtime: AgentRuntime): Promise<string> {
  const server = createServer(sseHandler({ runtime, pollIntervalMs: 10 }));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

interface Frame {
  readonly id: number;
  readonly event: LoopEvent;
}

/**
 * Reads SSE frames until the stream ends, or until `stopAfter` accepts a frame: then the client
 * disconnects (aborts the request) at once, as a browser losing its connection would.
 */
async function readStream(
  url: string,
  options: { lastEventId?: number; stopAfter?: (frame: Frame) => boolean } = {},
): Promise<{ frames: Frame[]; status: number; contentType: string | null; ended: boolean }> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: options.lastEventId === undefined ? {} : { "Last-Event-ID": String(options.lastEventId) },
    signal: controller.signal,
  });
  const frames: Frame[] = [];
  if (!response.body) return { frames, status: response.status, contentType: null, ended: true };
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done)
        return { frames, status: response.status, contentType: response.headers.get("content-type"), ended: true };
      buffer += value;
      let cut = buffer.indexOf("\n\n");
      while (cut >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        cut = buffer.indexOf("\n\n");
        const lines = block.split("\n");
        const id = lines.find((line) => line.startsWith("id: "))?.slice(4);
        const data = lines.find((line) => line.startsWith("data: "))?.slice(6);
        if (id === undefined || data === undefined) continue; // a comment (keep-alive)
        const frame = { id: Number(id), event: JSON.parse(data) as LoopEvent };
        frames.push(frame);
        if (options.stopAfter?.(frame)) {
          controller.abort();
          return { frames, status: response.status, contentType: response.headers.get("content-type"), ended: false };
        }
      }
    }
  } finally {
    reader.releaseLock();
  }
}

function startToolRun(runtime: AgentRuntime, toolDelayMs = 0): RunHandle {
  return runtime.startRun({
    sessionId: "s1",
    input: "Look up two items.",
    provider: scriptedProvider([
      callStep("c1", "lookup", { i: 1 }, "Looking up item 1."),
      callStep("c2", "lookup", { i: 2 }),
      textStep("Both are 'item'."),
    ]),
    tools: [
      lookupTool({ outcomes: [{ status: "ok", output: "item", ...(toolDelayMs ? { delayMs: toolDelayMs } : {}) }] }),
    ],
  });
}

/** What the run's whole ledger stands for, as LoopEvents with their row sequence. */
async function ledgerFrames(runtime: AgentRuntime, runId: string): Promise<Frame[]> {
  const { run, events, receipts } = await runtime.run(
    Effect.flatMap(AgentRunStore, (store) =>
      Effect.all({ run: store.getRun(runId), events: store.listRunEvents(runId), receipts: store.listReceipts(runId) }),
    ),
  );
  return events.flatMap((row) =>
    ledgerRowToLoopEvents(run!, row, receipts).map((event) => ({ id: row.sequence, event })),
  );
}

describe("SSE handler", () => {
  it("streams a finished run's events from the ledger in order, with ledger sequences as ids, and ends after done", async () => {
    const runtime = await harness.makeRuntime();
    const handle = startToolRun(runtime);
    await handle.result;
    const origin = await serve(runtime);
    const stream = await readStream(`${origin}/runs/${handle.runId}/events`);

    expect(stream.status).toBe(200);
    expect(stream.contentType).toMatch(/^text\/event-stream/);
    expect(stream.ended).toBe(true);
    expect(stream.frames.map((frame) => frame.event.type)).toEqual([
      "commentary",
      "tool_started",
      "tool_result",
      "tool_started",
      "tool_result",
      "final",
      "done",
    ]);
    const ids = stream.frames.map((frame) => frame.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(stream.frames.at(-1)!.event).toEqual({
      type: "done",
      runId: handle.runId,
      traceId: handle.traceId,
      terminalState: "completed",
      reason: "answered",
    });
  });

  it("streams the same LoopEvents the run emitted live", async () => {
    const runtime = await harness.makeRuntime();
    const handle = startToolRun(runtime);
    const live: LoopEvent[] = [];
    for await (const event of handle.events) live.push(event);
    const origin = await serve(runtime);
    const stream = await readStream(`${origin}/runs/${handle.runId}/events`);
    expect(stream.frames.map((frame) => frame.event)).toEqual(live);
  });

  it("follows a running run's new ledger rows until its terminal", async () => {
    const runtime = await harness.makeRuntime();
    const handle = startToolRun(runtime, 100);
    const origin = await serve(runtime);
    const stream = await readStream(`${origin}/runs/${handle.runId}/events`);
    await handle.result;

    expect(stream.ended).toBe(true);
    expect(stream.frames).toEqual(await ledgerFrames(runtime, handle.runId));
    expect(stream.frames.at(-1)!.event.type).toBe("done");
  });

  it("resumes after a forced disconnect with Last-Event-ID without losing or repeating an event", async () => {
    const runtime = await harness.makeRuntime();
    const handle = startToolRun(runtime, 100);
    const origin = await serve(runtime);
    const url = `${origin}/runs/${handle.runId}/events`;
    const first = await readStream(url, { stopAfter: (frame) => frame.event.type === "tool_started" });
    const resumed = await readStream(url, { lastEventId: first.frames.at(-1)!.id });
    await handle.result;

    expect(first.ended).toBe(false);
    expect(resumed.ended).toBe(true);
    expect([...first.frames, ...resumed.frames]).toEqual(await ledgerFrames(runtime, handle.runId));
  });

  it("sends nothing and ends at once when Last-Event-ID is the terminal row", async () => {
    const runtime = await harness.makeRuntime();
    const handle = startToolRun(runtime);
    await handle.result;
    const origin = await serve(runtime);
    const all = await ledgerFrames(runtime, handle.runId);
    const stream = await readStream(`${origin}/runs/${handle.runId}/events`, { lastEventId: all.at(-1)!.id });
    expect(stream).toMatchObject({ status: 200, ended: true, frames: [] });
  });

  it("answers 404 for a run the ledger does not know and for other paths", async () => {
    const runtime = await harness.makeRuntime();
    const origin = await serve(runtime);
    expect((await fetch(`${origin}/runs/nope/events`)).status).toBe(404);
    expect((await fetch(`${origin}/elsewhere`)).status).toBe(404);
  });
});

describe("ledgerRowToLoopEvents", () => {
  const run = { runId: "r1", traceId: "t1" };
  const row = (sequence: number, type: string, payload: unknown) =>
    ({ runId: "r1", sequence, type, payload, createdAt: "2024-01-01T00:00:00.000Z" }) as never;

  it("turns a terminal row into final then done", () => {
    expect(
      ledgerRowToLoopEvents(
        run,
        row(5, "terminal", {
          terminalState: "failed",
          reason: "provider_error",
          finalText: "This did not complete.",
          steps: 1,
          correctionTurns: 0,
        }),
      ),
    ).toEqual([
      { type: "final", runId: "r1", text: "This did not complete.", terminalState: "failed" },
      { type: "done", runId: "r1", traceId: "t1", terminalState: "failed", reason: "provider_error" },
    ]);
  });

  it("shows no event for the user's input or the answer row (the final carries the answer)", () => {
    expect(ledgerRowToLoopEvents(run, row(1, "user_input", { text: "Hi", origin: "user" }))).toEqual([]);
    expect(
      ledgerRowToLoopEvents(
        run,
        row(2, "assistant_output", { step: 1, text: "Hi!", finishReason: "stop", toolCallCount: 0, role: "answer" }),
      ),
    ).toEqual([]);
  });
});
