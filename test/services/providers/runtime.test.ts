import { Effect } from "effect";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CompletionContractInput } from "../../../src/domain/index.js";
import { AgentRunStore } from "../../../src/persistence/AgentRunStore.js";
import type { AgentRuntime } from "../../../src/runtime/AgentRuntime.js";
import { CASES } from "../../support/fakeServers/cases.js";
import { deepArgumentsReply, nullBody, wrongShapeStream } from "../../support/fakeServers/malformed.js";
import { type FakeServer, statusReply } from "../../support/fakeServers/shared.js";
import { ledgerViolations, lookupTool, readLedger, useRuntimeHarness } from "../../support/runtimeHarness.js";

/**
 * The real providers inside the real runtime (retries from `withProviderRetry`, FAST_RETRY:
 * 2 retries): retry-after honoured, retries running out, cancellation, and the 9-tool-call run.
 */

const harness = useRuntimeHarness("agentloop-providers-");
const OBSERVE_LOOKUP: CompletionContractInput = { evidenceMode: "observe", requiredToolNames: ["lookup"] };

const ledgerTypes = (runtime: AgentRuntime, runId: string) =>
  runtime
    .run(Effect.flatMap(AgentRunStore, (store) => store.listRunEvents(runId)))
    .then((rows) => rows.map((row) => row.type));

describe.each(CASES)("$name in the runtime", (providerCase) => {
  let server: FakeServer;
  beforeEach(async () => {
    server = await providerCase.start();
  });
  afterEach(async () => {
    await server.close();
  });

  const status = (code: number, headers: Record<string, string> = {}) =>
    statusReply(providerCase.wire.protocol, code, `status ${code}`, headers);

  it("retries a 429 after its retry-after-ms and completes", async () => {
    server.enqueue(status(429, { "retry-after-ms": "50" }), providerCase.wire.stream({ text: "Done." }));
    const runtime = await harness.makeRuntime({ provider: providerCase.make(server) });
    const result = await runtime.startRun({ sessionId: "s", input: "Say done." }).result;
    expect(result).toMatchObject({ terminalState: "completed", finalText: "Done." });
    expect(server.requests).toHaveLength(2);
  });

  it("ends failed/provider_error when 500s outlast the retries", async () => {
    server.enqueue(status(500), status(500), status(500), providerCase.wire.stream({ text: "never" }));
    const runtime = await harness.makeRuntime({ provider: providerCase.make(server) });
    const result = await runtime.startRun({ sessionId: "s", input: "Say done." }).result;
    expect(result).toMatchObject({ terminalState: "failed", terminalReason: "provider_error" });
    expect(server.requests).toHaveLength(3);
    expect(server.pending()).toBe(1);
  });

  it.each([
    { shape: "a whole body", stream: false },
    { shape: "a stream event", stream: true },
  ])(
    "ends failed/provider_tool_protocol_invalid without a retry when $shape has the wrong shape",
    async ({ stream }) => {
      server.enqueue(stream ? wrongShapeStream(providerCase) : nullBody, providerCase.wire.json({ text: "never" }));
      const runtime = await harness.makeRuntime({ provider: providerCase.make(server, { stream }) });
      const handle = runtime.startRun({ sessionId: "s", input: "Say done." });
      const result = await handle.result;
      expect(result).toMatchObject({ terminalState: "failed", terminalReason: "provider_tool_protocol_invalid" });
      expect(server.requests).toHaveLength(1);
      expect(server.pending()).toBe(1);
      expect(ledgerViolations(await readLedger(runtime, handle.runId))).toEqual([]);
    },
  );

  it.each([true, false])(
    "ends failed/provider_tool_protocol_invalid when tool arguments nest 100,000 deep, after its one repair (streamed: %s)",
    async (stream) => {
      const deep = deepArgumentsReply(providerCase, stream, 100_000);
      server.enqueue(deep, deep, providerCase.wire.json({ text: "never" }));
      const runtime = await harness.makeRuntime({
        provider: providerCase.make(server, { stream }),
        tools: [lookupTool()],
      });
      const handle = runtime.startRun({ sessionId: "s", input: "Look item 1 up.", contract: OBSERVE_LOOKUP });
      const result = await handle.result;
      expect(result).toMatchObject({ terminalState: "failed", terminalReason: "provider_tool_protocol_invalid" });
      expect(result.receipts).toEqual([]);
      expect(server.requests).toHaveLength(2);
      expect(ledgerViolations(await readLedger(runtime, handle.runId))).toEqual([]);
    },
  );

  it("retries a stream that hangs as a timeout, then completes", async () => {
    server.enqueue(providerCase.wire.stream({ text: ["Thin"] }, "hang"), providerCase.wire.stream({ text: "Done." }));
    const runtime = await harness.makeRuntime({ provider: providerCase.make(server, { timeoutMs: 300 }) });
    const result = await runtime.startRun({ sessionId: "s", input: "Say done." }).result;
    expect(result).toMatchObject({ terminalState: "completed", finalText: "Done." });
    expect(server.requests).toHaveLength(2);
    expect(server.abandoned()).toBe(1);
  });

  it("closes the provider connection when the run is cancelled mid-stream", async () => {
    server.enqueue(providerCase.wire.stream({ text: ["Thinking about it"] }, "hang"));
    let firstDelta: () => void = () => {};
    const streaming = new Promise<void>((resolve) => {
      firstDelta = resolve;
    });
    const runtime = await harness.makeRuntime({
      provider: providerCase.make(server, { onTextDelta: () => firstDelta() }),
    });
    const handle = runtime.startRun({ sessionId: "s", input: "Think." });
    await streaming;
    handle.cancel();
    const result = await handle.result;
    expect(result).toMatchObject({ terminalState: "cancelled", terminalReason: "cancelled_by_user" });
    await server.waitForAbandoned(1);
    expect(server.requests).toHaveLength(1);
  });

  it("streams the text as text_delta run events, each step's whole text after them, to every listener and the provider's callback", async () => {
    server.enqueue(
      providerCase.wire.stream({
        text: ["Let me ", "look."],
        calls: [{ id: "call_1", name: "lookup", arguments: ['{"i": 1}'] }],
      }),
      providerCase.wire.stream({ text: ["Item 1 ", "is 'item'."] }),
    );
    const callback: string[] = [];
    const runtime = await harness.makeRuntime({
      provider: providerCase.make(server, { onTextDelta: (_runId, step, text) => callback.push(`${step}:${text}`) }),
      tools: [lookupTool()],
    });
    const handle = runtime.startRun({ sessionId: "s", input: "Look item 1 up.", contract: OBSERVE_LOOKUP });
    const read = async () => {
      const events = [];
      for await (const event of handle.events) events.push(event);
      return events;
    };
    const [first, second] = await Promise.all([read(), read()]);
    const late = await read();

    const text = first.flatMap((event) =>
      event.type === "text_delta"
        ? [`delta ${event.step}:${event.delta}`]
        : event.type === "commentary" || event.type === "final"
          ? [`${event.type}:${event.text}`]
          : [],
    );
    expect(text).toEqual([
      "delta 1:Let me ",
      "delta 1:look.",
      "commentary:Let me look.",
      "delta 2:Item 1 ",
      "delta 2:is 'item'.",
      "final:Item 1 is 'item'.",
    ]);
    expect(second).toEqual(first);
    expect(late).toEqual(first);
    expect(callback).toEqual(["1:Let me ", "1:look.", "2:Item 1 ", "2:is 'item'."]);
    // Deltas are not ledger rows.
    expect(await ledgerTypes(runtime, handle.runId)).toEqual([
      "user_input",
      "assistant_output",
      "tool_call",
      "tool_result",
      "assistant_output",
      "terminal",
    ]);
  });

  it("runs nine lookup steps and a final answer to completed with the expected ledger", async () => {
    for (let i = 1; i <= 9; i++) {
      server.enqueue(
        providerCase.wire.stream({ calls: [{ id: `call_${i}`, name: "lookup", arguments: ['{"i": ', `${i}}`] }] }),
      );
    }
    server.enqueue(providerCase.wire.stream({ text: ["All nine ", "items were looked up."] }));
    const runtime = await harness.makeRuntime({ provider: providerCase.make(server), tools: [lookupTool()] });
    const handle = runtime.startRun({ sessionId: "s", input: "Look up items 1 to 9.", contract: OBSERVE_LOOKUP });
    const result = await handle.result;

    expect(result).toMatchObject({ terminalState: "completed", steps: 10 });
    expect(result.receipts.map((receipt) => receipt.status)).toEqual(Array(9).fill("ok"));
    expect(await ledgerTypes(runtime, handle.runId)).toEqual([
      "user_input",
      ...Array.from({ length: 9 }, () => ["tool_call", "tool_result"]).flat(),
      "assistant_output",
      "terminal",
    ]);
    expect(ledgerViolations(await readLedger(runtime, handle.runId))).toEqual([]);
    // Every request, the last one with the whole paired history, passed the server's validation.
    expect(server.requests.filter((recorded) => recorded.rejected)).toEqual([]);
    expect(server.requests).toHaveLength(10);
  });

  it("forces the required tool on the first step and lets the model choose afterwards", async () => {
    server.enqueue(
      providerCase.wire.stream({ calls: [{ id: "call_1", name: "lookup", arguments: '{"i":1}' }] }),
      providerCase.wire.stream({ text: "Item 1 found." }),
    );
    const runtime = await harness.makeRuntime({ provider: providerCase.make(server), tools: [lookupTool()] });
    await runtime.startRun({ sessionId: "s", input: "Look item 1 up.", contract: OBSERVE_LOOKUP }).result;
    const choices = server.requests.map((recorded) => recorded.body.tool_choice);
    const forced = {
      "openai-chat": { type: "function", function: { name: "lookup" } },
      "openai-responses": { type: "function", name: "lookup" },
      anthropic: { type: "tool", name: "lookup" },
    }[providerCase.name];
    const auto = { "openai-chat": "auto", "openai-responses": "auto", anthropic: { type: "auto" } }[providerCase.name];
    expect(choices).toEqual([forced, auto]);
  });

  it("writes the adapter's anomalies to the ledger as provider_anomaly rows", async () => {
    server.enqueue(
      providerCase.wire.stream({ calls: [{ id: "call_1", name: "lookup", arguments: "{i:1" }] }),
      providerCase.wire.stream({ text: "Could not look it up." }),
    );
    const runtime = await harness.makeRuntime({ provider: providerCase.make(server), tools: [lookupTool()] });
    const handle = runtime.startRun({ sessionId: "s", input: "Look item 1 up." });
    const result = await handle.result;
    const ledger = await readLedger(runtime, handle.runId);
    const anomalies = ledger.events.filter((event) => event.type === "provider_anomaly");
    expect(anomalies.map((event) => (event.payload as { code: string }).code)).toEqual(["arguments_not_json"]);
    expect(result.receipts.map((receipt) => [receipt.status, receipt.reason])).toEqual([
      ["error", "invalid_arguments"],
    ]);
  });
});
