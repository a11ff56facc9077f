// A host application using the installed agentloop package with plain node (no tsx, no loader).
// Copied into the scratch project by test/package/consumer.test.ts and run there as
// `node host.mjs <ledger file>`; it prints one JSON summary line on stdout.
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import { AgentRuntime, defineTool, fromAgentRun, sseHandler, toUIMessageStream } from "agentloop";
import * as machines from "agentloop/machines";
import * as providers from "agentloop/providers";
import { scriptedProvider, standInRun } from "agentloop/testing";
import * as tools from "agentloop/tools";
import { readUIMessageStream } from "ai";
import { Effect } from "effect";
import { assign, createActor, setup, toPromise } from "xstate";
import { z } from "zod";

const database = process.argv[2];
if (!database) throw new Error("usage: node host.mjs <ledger file>");

// An async-function tool.
const lookupOrder = defineTool({
  name: "lookup_order",
  description: "Looks an order up by id.",
  kind: "observe",
  input: z.object({ id: z.string() }),
  execute: async (args, { signal }) => {
    if (signal.aborted) return { status: "error", output: "aborted" };
    return { status: "ok", output: { id: args.id, state: "shipped" }, evidence: { order_id: args.id } };
  },
});

// A zod tool whose executor is an Effect.
const trackParcel = defineTool({
  name: "track_parcel",
  description: "Tracks the parcel of an order.",
  kind: "observe",
  input: z.object({ orderId: z.string(), carrier: z.enum(["dhl", "ups"]) }),
  execute: (args) =>
    Effect.succeed({
      status: "ok",
      output: { orderId: args.orderId, carrier: args.carrier, at: "hub" },
      evidence: { tracking: `${args.carrier}-${args.orderId}` },
    }),
});

// A tool that runs until the run is cancelled.
let waitSawAbort = false;
const waitForApproval = defineTool({
  name: "wait_for_approval",
  description: "Waits for a person to approve.",
  kind: "observe",
  input: z.object({ ticket: z.string() }),
  execute: (_args, { signal }) =>
    new Promise((resolve) => {
      signal.addEventListener(
        "abort",
        () => {
          waitSawAbort = true;
          resolve({ status: "error", output: "aborted" });
        },
        { once: true },
      );
    }),
});

const runtime = await AgentRuntime.make({ database });
try {
  // 1. A scripted run that calls both tools and answers: completed.
  const answered = runtime.startRun({
    sessionId: "s1",
    input: "Where is order 7?",
    contract: { evidenceMode: "observe" },
    tools: [lookupOrder, trackParcel],
    provider: scriptedProvider([
      {
        toolCalls: [
          { id: "c1", name: "lookup_order", arguments: { id: "7" } },
          { id: "c2", name: "track_parcel", arguments: { orderId: "7", carrier: "dhl" } },
        ],
      },
      { text: "Order 7 has shipped and is at the hub." },
    ]),
  });
  const answeredResult = await answered.result;

  // 2. A run cancelled through an AbortSignal while its tool is running: cancelled.
  const controller = new AbortController();
  const cancelled = runtime.startRun({
    sessionId: "s1",
    input: "Get ticket T-1 approved.",
    contract: { evidenceMode: "observe" },
    tools: [waitForApproval],
    signal: controller.signal,
    provider: scriptedProvider([
      { toolCalls: [{ id: "w1", name: "wait_for_approval", arguments: { ticket: "T-1" } }] },
      { text: "Approved." },
    ]),
  });
  const cancelledEvents = [];
  for await (const event of cancelled.events) {
    cancelledEvents.push(event.type);
    if (event.type === "tool_started") controller.abort();
  }
  const cancelledResult = await cancelled.result;

  // 3. One run, two browser tabs: two SSE clients of the run's events endpoint, each to the end.
  const slowLookup = defineTool({
    name: "slow_lookup",
    description: "Looks an order up, slowly.",
    kind: "observe",
    input: z.object({ id: z.string() }),
    execute: async (args) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { status: "ok", output: { id: args.id, state: "shipped" }, evidence: { order_id: args.id } };
    },
  });
  const server = createServer(sseHandler({ runtime, pollIntervalMs: 20 }));
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const shared = runtime.startRun({
    sessionId: "s2",
    input: "Where is order 8?",
    contract: { evidenceMode: "observe" },
    tools: [slowLookup],
    provider: scriptedProvider([
      { text: "Looking it up.", toolCalls: [{ id: "s1", name: "slow_lookup", arguments: { id: "8" } }] },
      { text: "Order 8 has shipped." },
    ]),
  });
  const tab = async () => {
    const response = await fetch(`http://127.0.0.1:${server.address().port}/runs/${shared.runId}/events`);
    const text = await response.text();
    return text
      .split("\n\n")
      .filter((frame) => frame.includes("data: "))
      .map((frame) => JSON.parse(frame.slice(frame.indexOf("data: ") + 6)).type);
  };
  const tabs = await Promise.all([tab(), tab()]);
  const sharedLive = [];
  for await (const event of shared.events) sharedLive.push(event.type);
  server.close();

  // 4. A run read as the AI SDK's UI Message Stream with the ai package's own reader.
  const chatRun = runtime.startRun({
    sessionId: "s3",
    input: "Where is order 9?",
    contract: { evidenceMode: "observe" },
    tools: [lookupOrder],
    provider: scriptedProvider([
      { toolCalls: [{ id: "u1", name: "lookup_order", arguments: { id: "9" } }] },
      { text: "Order 9 has shipped." },
    ]),
  });
  let uiMessage;
  for await (const message of readUIMessageStream({ stream: toUIMessageStream(chatRun) })) uiMessage = message;

  // 5. A run invoked from the host's own statechart, which branches on how it ended; then the same
  // chart with the testing stand-in run in place of the real one.
  const desk = setup({ actors: { agentRun: fromAgentRun(runtime) } }).createMachine({
    context: { heard: [], runId: null },
    initial: "answering",
    states: {
      answering: {
        invoke: {
          id: "run",
          src: "agentRun",
          input: {
            sessionId: "s4",
            input: "Where is order 7?",
            contract: { evidenceMode: "observe" },
            tools: [lookupOrder],
            provider: scriptedProvider([
              { toolCalls: [{ id: "c1", name: "lookup_order", arguments: { id: "7" } }] },
              { text: "Order 7 has shipped." },
            ]),
          },
          onDone: [
            {
              guard: ({ event }) => event.output.terminalState === "completed",
              target: "answered",
              actions: assign({ runId: ({ event }) => event.output.runId }),
            },
            { target: "handedToPerson" },
          ],
        },
        on: {
          "agentloop.event": {
            actions: assign({ heard: ({ context, event }) => [...context.heard, event.event.type] }),
          },
        },
      },
      answered: { type: "final" },
      handedToPerson: { type: "final" },
    },
  });
  const hosted = createActor(desk).start();
  await toPromise(hosted);
  const standIn = createActor(
    desk.provide({ actors: { agentRun: standInRun({ terminalState: "unverified" }) } }),
  ).start();
  await toPromise(standIn);

  // 6. The ledger, read back.
  const ledgerOf = async (runId) => {
    const row = await runtime.ledger.getRun(runId);
    const events = await runtime.ledger.listEvents(runId);
    const receipts = await runtime.ledger.listReceipts(runId);
    return {
      terminalState: row?.terminalState ?? null,
      sessionId: row?.sessionId ?? null,
      eventTypes: events.map((event) => event.type),
      receipts: receipts.map((receipt) => ({
        callId: receipt.callId,
        toolName: receipt.toolName,
        status: receipt.status,
        reason: receipt.reason ?? null,
        evidence: receipt.evidence,
      })),
    };
  };

  const summary = {
    imports: {
      machines: Object.keys(machines).sort(),
      providers: Object.keys(providers).sort(),
      tools: Object.keys(tools).sort(),
    },
    answered: {
      runId: answered.runId,
      terminalState: answeredResult.terminalState,
      terminalReason: answeredResult.terminalReason,
      finalText: answeredResult.finalText,
      receiptStatuses: answeredResult.receipts.map((receipt) => receipt.status),
      ledger: await ledgerOf(answered.runId),
    },
    cancelled: {
      runId: cancelled.runId,
      terminalState: cancelledResult.terminalState,
      terminalReason: cancelledResult.terminalReason,
      events: cancelledEvents,
      toolSawAbort: waitSawAbort,
      ledger: await ledgerOf(cancelled.runId),
    },
    hosted: {
      end: hosted.getSnapshot().value,
      heard: hosted.getSnapshot().context.heard,
      ledger: await ledgerOf(hosted.getSnapshot().context.runId),
      standInEnd: standIn.getSnapshot().value,
    },
    sse: { tabs, live: sharedLive },
    uiMessage: {
      id: uiMessage?.id,
      parts: uiMessage?.parts.map((part) =>
        part.type === "text" ? `text:${part.text}` : `${part.type}:${part.state ?? ""}`,
      ),
      metadata: uiMessage?.metadata,
    },
    ledgerFileExists: existsSync(database),
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`);
} finally {
  await runtime.dispose();
}
