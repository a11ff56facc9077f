import { parseJsonEventStream, readUIMessageStream, type UIMessage, uiMessageChunkSchema } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CompletionContractInput } from "../../src/domain/index.js";
import {
  type RunMessageMetadata,
  toUIMessageStream,
  toUIMessageStreamResponse,
} from "../../src/host/uiMessageStream.js";
import type { AgentRuntime, RunHandle } from "../../src/runtime/AgentRuntime.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { fixtureTool } from "../../src/services/tools/fixtureTool.js";
import { CASES } from "../support/fakeServers/cases.js";
import type { FakeServer } from "../support/fakeServers/shared.js";
import { callStep, lookupTool, textStep, useRuntimeHarness } from "../support/runtimeHarness.js";

/**
 * A real run (the OpenAI chat provider streaming from a fake server on 127.0.0.1) read as the AI
 * SDK's UI Message Stream by the `ai` package's own reader, the one `useChat` uses.
 */

const harness = useRuntimeHarness("agentloop-ui-stream-");
const chat = CASES.find((providerCase) => providerCase.name === "openai-chat")!;
let server: FakeServer;
beforeEach(async () => {
  server = await chat.start();
});
afterEach(async () => {
  await server.close();
});

const DELIVER: CompletionContractInput = { evidenceMode: "deliver", requiredToolNames: ["send_message"] };
const sendTool = () =>
  fixtureTool({
    name: "send_message",
    kind: "deliver",
    outcomes: [{ status: "ok", output: { sent: true }, evidence: { message_id: "m-1" } }],
  });

/** Looks item 1 up (streamed commentary), sends the report (approved), sends to #all (denied), answers. */
function startSupportRun(runtime: AgentRuntime): RunHandle {
  server.enqueue(
    chat.wire.stream({ text: ["Let me ", "check."], calls: [{ id: "c1", name: "lookup", arguments: '{"i": 1}' }] }),
    chat.wire.stream({
      calls: [{ id: "c2", name: "send_message", arguments: '{"channel": "ops", "text": "report"}' }],
    }),
    chat.wire.stream({
      calls: [{ id: "c3", name: "send_message", arguments: '{"channel": "all", "text": "report"}' }],
    }),
    chat.wire.stream({ text: ["Sent the report ", "(message m-1)."] }),
  );
  const handle = runtime.startRun({
    sessionId: "s1",
    input: "Check item 1 and send the report.",
    contract: DELIVER,
    tools: [lookupTool(), sendTool()],
    approval: { kinds: ["deliver"] },
  });
  // The host's decisions: the report to #ops is approved, the one to #all denied.
  void (async () => {
    for await (const event of handle.events) {
      if (event.type !== "approval_requested") continue;
      if (event.callId === "c2") await handle.approve("c2");
      else await handle.deny(event.callId, { message: "not to everyone" });
    }
  })();
  return handle;
}

async function lastMessage(stream: ReadableStream<never>): Promise<UIMessage<RunMessageMetadata>> {
  let last: UIMessage<RunMessageMetadata> | undefined;
  for await (const message of readUIMessageStream<UIMessage<RunMessageMetadata>>({ stream, terminateOnError: true }))
    last = message;
  if (!last) throw new Error("the stream gave no message");
  return last;
}

describe("toUIMessageStream", () => {
  it("is read by the ai package into steps, streamed text, tool calls with their approval, a denial, and the run's terminal state", async () => {
    const runtime = await harness.makeRuntime({ provider: chat.make(server) });
    const handle = startSupportRun(runtime);
    const message = await lastMessage(toUIMessageStream(handle) as ReadableStream<never>);
    await handle.result;

    expect(message.id).toBe(handle.runId);
    expect(message.role).toBe("assistant");
    expect(message.parts).toEqual([
      { type: "step-start" },
      { type: "text", text: "Let me check.", state: "done" },
      {
        type: "tool-lookup",
        toolCallId: "c1",
        state: "output-available",
        input: { i: 1 },
        output: { value: "item" },
      },
      { type: "step-start" },
      expect.objectContaining({
        type: "tool-send_message",
        toolCallId: "c2",
        state: "output-available",
        input: { channel: "ops", text: "report" },
        output: { sent: true },
        approval: { id: "c2" },
      }),
      { type: "step-start" },
      expect.objectContaining({
        type: "tool-send_message",
        toolCallId: "c3",
        state: "output-denied",
        input: { channel: "all", text: "report" },
        approval: { id: "c3" },
      }),
      { type: "step-start" },
      { type: "text", text: "Sent the report (message m-1).", state: "done" },
    ]);
    expect(message.metadata).toEqual({
      runId: handle.runId,
      traceId: handle.traceId,
      terminalState: "completed",
      reason: "receipts_satisfied",
      receipts: [
        { callId: "c1", toolName: "lookup", status: "ok" },
        { callId: "c2", toolName: "send_message", status: "ok" },
        { callId: "c3", toolName: "send_message", status: "denied", reason: "approval_denied" },
      ],
    });
  });

  it("shows the whole text of a step that did not stream, and the runtime's final words when the run did not complete", async () => {
    const runtime = await harness.makeRuntime({ provider: chat.make(server, { stream: false }) });
    server.enqueue(chat.wire.json({ text: "I sent it." }), chat.wire.json({ text: "I sent it." }));
    const handle = runtime.startRun({ sessionId: "s1", input: "Send the report.", contract: DELIVER });
    const message = await lastMessage(toUIMessageStream(handle) as ReadableStream<never>);
    const result = await handle.result;

    expect(result.terminalState).not.toBe("completed");
    const texts = message.parts.flatMap((part) => (part.type === "text" ? [part.text] : []));
    expect(texts.at(-1)).toBe(result.finalText);
    expect(message.metadata).toMatchObject({ terminalState: result.terminalState, reason: result.terminalReason });
  });
});

describe("toUIMessageStream, steps without streamed text", () => {
  it("puts an answer that did not stream after tool results into a step of its own", async () => {
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Look item 1 up.",
      provider: scriptedProvider([callStep("c1", "lookup", { i: 1 }), textStep("It is 'item'.")]),
      tools: [lookupTool()],
    });
    const message = await lastMessage(toUIMessageStream(handle) as ReadableStream<never>);
    expect(message.parts.map((part) => part.type)).toEqual(["step-start", "tool-lookup", "step-start", "text"]);
    expect(message.parts.at(-1)).toEqual({ type: "text", text: "It is 'item'.", state: "done" });
  });
});

describe("toUIMessageStreamResponse", () => {
  it("answers with the protocol's headers and SSE frames that the ai package's chunk schema accepts, ending with [DONE]", async () => {
    const runtime = await harness.makeRuntime({ provider: chat.make(server) });
    server.enqueue(chat.wire.stream({ text: ["Hello ", "there."] }));
    const handle = runtime.startRun({ sessionId: "s1", input: "Hi" });
    const response = toUIMessageStreamResponse(handle, { headers: { "x-run-id": handle.runId } });

    expect(response.status).toBe(200);
    expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("x-run-id")).toBe(handle.runId);
    const [forSchema, forText] = response.body!.tee();
    const chunks = [];
    for await (const parsed of parseJsonEventStream({ stream: forSchema, schema: uiMessageChunkSchema })) {
      expect(parsed.success).toBe(true);
      if (parsed.success) chunks.push(parsed.value);
    }
    const text = await new Response(forText).text();

    expect(chunks.map((chunk) => chunk.type)).toEqual([
      "start",
      "start-step",
      "text-start",
      "text-delta",
      "text-delta",
      "text-end",
      "finish-step",
      "finish",
    ]);
    expect(text.startsWith('data: {"type":"start"')).toBe(true);
    expect(text.endsWith("\n\ndata: [DONE]\n\n")).toBe(true);
  });

  it("stops reading when the client goes away, and the run goes on", async () => {
    const runtime = await harness.makeRuntime({ provider: chat.make(server) });
    server.enqueue(chat.wire.stream({ text: ["Hello."] }));
    const handle = runtime.startRun({ sessionId: "s1", input: "Hi" });
    const reader = toUIMessageStream(handle).getReader();
    expect((await reader.read()).value).toEqual({ type: "start", messageId: handle.runId });
    await reader.cancel();
    expect((await handle.result).terminalState).toBe("completed");
  });
});
