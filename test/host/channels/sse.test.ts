import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Effect } from "effect";
import { afterEach, describe, expect, it } from "vitest";
import type { LoopEvent } from "../../../src/domain/index.js";
import { ledgerRowToLoopEvents, sseHandler } from "../../../src/host/channels/sse.js";
import { AgentRunStore } from "../../../src/persistence/AgentRunStore.js";
import type { AgentRuntime, RunHandle } from "../../../src/runtime/AgentRuntime.js";
import { scriptedProvider } from "../../../src/services/providers/scripted.js";
import { fixtureTool } from "../../../src/services/tools/fixtureTool.js";
import { CASES } from "../../support/fakeServers/cases.js";
import { callStep, lookupTool, textStep, useRuntimeHarness } from "../../support/runtimeHarness.js";

/**
 * The SSE handler against a real runtime on a temp SQLite file, read by a real `fetch` stream
 * client on 127.0.0.1.
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
  /** Absent for an event that is not a ledger row (approval request, start, text delta). */
  readonly id?: number;
  readonly event: LoopEvent;
}

/** The frames that stand for ledger rows. */
const rowFrames = (frames: ReadonlyArray<Frame>) => frames.filter((frame) => frame.id !== undefined);

/**
 * Reads SSE frames until the stream ends, or until `stopAfter` accepts a frame: then the client
 * disconnects (aborts the request) at once, as a browser losing its connection would.
 */
async function readStream(
  url: string,
  options: { lastEventId?: number; stopAfter?: (frame: Frame) => boolean; onFrame?: (frame: Frame) => void } = {},
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
        if (data === undefined) continue; // a comment (keep-alive)
        const event = JSON.parse(data) as LoopEvent;
        const frame: Frame = id === undefined ? { event } : { id: Number(id), event };
        frames.push(frame);
        options.onFrame?.(frame);
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
    expect(stream.frames.map((frame) => [frame.event.type, frame.id !== undefined])).toEqual([
      ["commentary", true],
      ["tool_call", true],
      ["tool_started", false],
      ["tool_result", true],
      ["tool_call", true],
      ["tool_started", false],
      ["tool_result", true],
      ["final", true],
      ["done", true],
    ]);
    const ids = rowFrames(stream.frames).map((frame) => frame.id);
    expect([...ids].sort((a, b) => a! - b!)).toEqual(ids);
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
    expect(rowFrames(stream.frames)).toEqual(await ledgerFrames(runtime, handle.runId));
    expect(stream.frames.at(-1)!.event.type).toBe("done");
  });

  it("resumes after a forced disconnect with Last-Event-ID without losing or repeating an event", async () => {
    const runtime = await harness.makeRuntime();
    const handle = startToolRun(runtime, 100);
    const origin = await serve(runtime);
    const url = `${origin}/runs/${handle.runId}/events`;
    const first = await readStream(url, { stopAfter: (frame) => frame.event.type === "tool_call" });
    const resumed = await readStream(url, { lastEventId: first.frames.at(-1)!.id! });
    await handle.result;

    expect(first.ended).toBe(false);
    expect(resumed.ended).toBe(true);
    expect(rowFrames([...first.frames, ...resumed.frames])).toEqual(await ledgerFrames(runtime, handle.runId));
    // The call the first connection saw proposed is told as started on the second.
    expect(resumed.frames.find((frame) => frame.event.type === "tool_started")?.event).toMatchObject({ callId: "c1" });
  });

  it("sends nothing and ends at once when Last-Event-ID is the terminal row", async () => {
    const runtime = await harness.makeRuntime();
    const handle = startToolRun(runtime);
    await handle.result;
    const origin = await serve(runtime);
    const all = await ledgerFrames(runtime, handle.runId);
    const stream = await readStream(`${origin}/runs/${handle.runId}/events`, { lastEventId: all.at(-1)!.id! });
    expect(stream).toMatchObject({ status: 200, ended: true, frames: [] });
  });

  it("tells of a call that waits for approval, and of its start only once it is approved", async () => {
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Send the report.",
      contract: { evidenceMode: "deliver", requiredToolNames: ["send_message"] },
      provider: scriptedProvider([callStep("c1", "send_message", { text: "report" }), textStep("Sent (message m-1).")]),
      tools: [
        fixtureTool({
          name: "send_message",
          kind: "deliver",
          outcomes: [{ status: "ok", output: { sent: true }, evidence: { message_id: "m-1" } }],
        }),
      ],
      approval: { kinds: ["deliver"] },
    });
    const origin = await serve(runtime);
    // The decision is taken only once the stream told of the request: the start comes after it.
    const stream = await readStream(`${origin}/runs/${handle.runId}/events`, {
      onFrame: (frame) => {
        if (frame.event.type === "approval_requested") void handle.approve(frame.event.callId);
      },
    });
    await handle.result;

    expect(stream.frames.map((frame) => [frame.event.type, frame.id !== undefined])).toEqual([
      ["tool_call", true],
      ["approval_requested", false],
      ["tool_started", false],
      ["tool_result", true],
      ["final", true],
      ["done", true],
    ]);
    expect(stream.frames[1]!.event).toEqual({
      type: "approval_requested",
      runId: handle.runId,
      step: 1,
      callId: "c1",
      toolName: "send_message",
      arguments: { text: "report" },
      reason: expect.any(String),
    });
  });

  it("carries the run's text deltas, without ids, before each step's whole text", async () => {
    const chat = CASES.find((providerCase) => providerCase.name === "openai-chat")!;
    const server = await chat.start();
    try {
      server.enqueue(
        chat.wire.stream({ text: ["Let me ", "look."], calls: [{ id: "c1", name: "lookup", arguments: '{"i": 1}' }] }),
        chat.wire.stream({ text: ["It is ", "'item'."] }),
      );
      const runtime = await harness.makeRuntime({ provider: chat.make(server) });
      const handle = runtime.startRun({
        sessionId: "s1",
        input: "Look item 1 up.",
        tools: [lookupTool({ outcomes: [{ status: "ok", output: "item", delayMs: 300 }] })],
      });
      const origin = await serve(runtime);
      const stream = await readStream(`${origin}/runs/${handle.runId}/events`);
      await handle.result;

      const text = stream.frames.flatMap(({ event, id }) =>
        event.type === "text_delta"
          ? [`${id ?? "-"} delta ${event.step}:${event.delta}`]
          : event.type === "commentary" || event.type === "final"
            ? [`${event.type}:${event.text}`]
            : [],
      );
      expect(text).toEqual([
        "- delta 1:Let me ",
        "- delta 1:look.",
        "commentary:Let me look.",
        "- delta 2:It is ",
        "- delta 2:'item'.",
        "final:It is 'item'.",
      ]);
      expect(rowFrames(stream.frames)).toEqual(await ledgerFrames(runtime, handle.runId));
    } finally {
      await server.close();
    }
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
