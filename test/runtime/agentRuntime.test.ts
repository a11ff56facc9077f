import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import {
  type CassetteModelStep,
  type CompletionContractInput,
  type ContextMessage,
  LoopEvent,
  NONE_CONTRACT,
} from "../../src/domain/index.js";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import { AgentRuntime } from "../../src/runtime/AgentRuntime.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { BASE_PROMPT } from "../../src/services/workspace/prompt.js";
import {
  callStep,
  collectEvents,
  eventTypes,
  FAST_RETRY,
  finish,
  ledgerViolations,
  lookupTool,
  readLedger,
  receiptSummary,
  textStep,
  useRuntimeHarness,
} from "../support/runtimeHarness.js";

const harness = useRuntimeHarness();

const OBSERVE_LOOKUP: CompletionContractInput = { evidenceMode: "observe", requiredToolNames: ["lookup"] };

/** Nine steps of one `lookup` call each (different items), then the final text. */
const nineLookups = (): CassetteModelStep[] => [
  ...Array.from({ length: 9 }, (_, index) => callStep(`c${index + 1}`, "lookup", { i: index + 1 })),
  textStep("All nine items looked up."),
];

describe("AgentRuntime.startRun: acceptance", () => {
  it("completes a nine-lookup run with 21 ledger rows in order and nine ok receipts", async () => {
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Look up items 1 to 9.",
      contract: OBSERVE_LOOKUP,
      provider: scriptedProvider(nineLookups()),
      tools: [lookupTool()],
    });
    const { result, ...ledger } = await finish(runtime, handle);

    expect(result.terminalState).toBe("completed");
    expect(result.terminalReason).toBe("receipts_satisfied");
    expect(result.finalText).toBe("All nine items looked up.");
    expect(eventTypes(ledger)).toEqual([
      "user_input",
      ...Array.from({ length: 9 }, () => ["tool_call", "tool_result"] as const).flat(),
      "assistant_output",
      "terminal",
    ]);
    expect(ledger.events).toHaveLength(21);
    expect(receiptSummary(ledger)).toEqual(Array.from({ length: 9 }, () => ({ toolName: "lookup", status: "ok" })));
    expect(ledger.receipts.map((receipt) => receipt.callId)).toEqual(
      Array.from({ length: 9 }, (_, index) => `c${index + 1}`),
    );
    expect(ledger.run).toMatchObject({ terminalState: "completed", failureCode: "receipts_satisfied" });
    expect(ledgerViolations(ledger)).toEqual([]);
  });

  it("ends cancelled when the host cancels after the first tool starts, with a cancelled receipt for the in-flight call", async () => {
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Look up items 1 to 9.",
      contract: OBSERVE_LOOKUP,
      provider: scriptedProvider(nineLookups()),
      tools: [lookupTool({ outcomes: [{ status: "ok", delayMs: 5_000, output: "late" }] })],
    });
    const seen: string[] = [];
    for await (const event of handle.events) {
      seen.push(event.type);
      if (event.type === "tool_started" && seen.filter((type) => type === "tool_started").length === 1) {
        handle.cancel();
      }
    }
    const { result, ...ledger } = await finish(runtime, handle);

    expect(result.terminalState).toBe("cancelled");
    expect(result.terminalReason).toBe("cancelled_by_user");
    expect(eventTypes(ledger)).toEqual(["user_input", "tool_call", "tool_result", "terminal"]);
    expect(receiptSummary(ledger)).toEqual([{ toolName: "lookup", status: "cancelled", reason: "cancelled_by_user" }]);
    expect(seen).toEqual(["tool_call", "tool_started", "tool_result", "final", "done"]);
    expect(ledgerViolations(ledger)).toEqual([]);
  });

  it("settles every running and pending call of the step as cancelled when the host cancels", async () => {
    const runtime = await harness.makeRuntime({ toolConcurrency: 2 });
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Look up three items at once.",
      provider: scriptedProvider([
        {
          toolCalls: ["c1", "c2", "c3"].map((id, index) => ({ id, name: "lookup", arguments: { i: index } })),
          finishReason: "tool_calls",
        },
        textStep("never reached"),
      ]),
      tools: [lookupTool({ outcomes: [{ status: "ok", delayMs: 5_000, output: "late" }] })],
    });
    let started = 0;
    for await (const event of handle.events) {
      if (event.type === "tool_started" && ++started === 2) handle.cancel();
    }
    const { result, ...ledger } = await finish(runtime, handle);

    expect(result.terminalState).toBe("cancelled");
    expect(eventTypes(ledger)).toEqual([
      "user_input",
      "tool_call",
      "tool_call",
      "tool_call",
      "tool_result",
      "tool_result",
      "tool_result",
      "terminal",
    ]);
    expect(ledger.receipts.map(({ callId, status, reason }) => ({ callId, status, reason }))).toEqual([
      { callId: "c1", status: "cancelled", reason: "cancelled_by_user" },
      { callId: "c2", status: "cancelled", reason: "cancelled_by_user" },
      { callId: "c3", status: "cancelled", reason: "cancelled_by_user" },
    ]);
    expect(ledger.receipts.map((receipt) => receipt.evidence.started)).toEqual([true, true, false]);
    expect(ledgerViolations(ledger)).toEqual([]);
  });
});

describe("RunHandle", () => {
  const twoSteps = () =>
    scriptedProvider([
      callStep("c1", "lookup", { i: 1 }, "Checking item 1."),
      {
        toolCalls: [
          { id: "c2", name: "lookup", arguments: { i: 2 } },
          { id: "c3", name: "lookup", arguments: { i: 3 } },
        ],
        finishReason: "tool_calls",
      },
      textStep("Items 1, 2 and 3 are 'item'."),
    ]);

  it("streams LoopEvents in order, ending with final then done", async () => {
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({ sessionId: "s1", input: "Check.", provider: twoSteps(), tools: [lookupTool()] });
    const events = await collectEvents(handle);

    expect(events.map((event) => event.type)).toEqual([
      "commentary",
      "tool_call",
      "tool_started",
      "tool_result",
      "tool_call",
      "tool_call",
      "tool_started",
      "tool_started",
      "tool_result",
      "tool_result",
      "final",
      "done",
    ]);
    for (const event of events) expect(LoopEvent.safeParse(event).success).toBe(true);
    expect(events[0]).toEqual({ type: "commentary", runId: handle.runId, step: 1, text: "Checking item 1." });
    expect(events.filter((event) => event.type === "tool_result").map((event) => event.callId)).toEqual([
      "c1",
      "c2",
      "c3",
    ]);
    expect(events[1]).toEqual({
      type: "tool_call",
      runId: handle.runId,
      step: 1,
      callId: "c1",
      toolName: "lookup",
      arguments: { i: 1 },
    });
    expect(events[10]).toEqual({
      type: "final",
      runId: handle.runId,
      text: "Items 1, 2 and 3 are 'item'.",
      terminalState: "completed",
    });
  });

  it("ends the stream with a done event carrying state, reason, run and trace ids and no text", async () => {
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({ sessionId: "s1", input: "Hi", provider: scriptedProvider([textStep("Hello.")]) });
    const events = await collectEvents(handle);
    expect(events.at(-1)).toEqual({
      type: "done",
      runId: handle.runId,
      traceId: handle.traceId,
      terminalState: "completed",
      reason: "answered",
    });
  });

  it("leaves the actor done with the run result as its output", async () => {
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({ sessionId: "s1", input: "Check.", provider: twoSteps(), tools: [lookupTool()] });
    const result = await handle.result;
    const snapshot = handle.actor.getSnapshot();
    expect(snapshot.status).toBe("done");
    expect(snapshot.output).toEqual(result);
    expect(result).toMatchObject({ runId: handle.runId, traceId: handle.traceId, sessionId: "s1", steps: 3 });
  });

  it("keeps the transcript as user, each assistant tool-call message followed by its tool messages, then the answer", async () => {
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({ sessionId: "s1", input: "Check.", provider: twoSteps(), tools: [lookupTool()] });
    await handle.result;
    const messages = handle.transcript.getSnapshot().context.messages;
    const shape = (message: ContextMessage) =>
      message.role === "assistant"
        ? { role: "assistant", content: message.content, calls: message.toolCalls.map((call) => call.id) }
        : message.role === "tool"
          ? { role: "tool", callId: message.callId, isError: message.isError }
          : { role: message.role, content: message.content };
    expect(messages.map(shape)).toEqual([
      { role: "system", content: BASE_PROMPT },
      { role: "user", content: "Check." },
      { role: "assistant", content: "Checking item 1.", calls: ["c1"] },
      { role: "tool", callId: "c1", isError: false },
      { role: "assistant", content: "", calls: ["c2", "c3"] },
      { role: "tool", callId: "c2", isError: false },
      { role: "tool", callId: "c3", isError: false },
      { role: "assistant", content: "Items 1, 2 and 3 are 'item'.", calls: [] },
    ]);
  });

  it("puts the host's history before the user input in the transcript", async () => {
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Hi",
      system: false,
      history: [{ role: "system", content: "Be brief." }],
      provider: scriptedProvider([textStep("Hello.")]),
    });
    await handle.result;
    expect(handle.transcript.getSnapshot().context.messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
    ]);
  });

  it("uses the run and trace ids the host passes", async () => {
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Hi",
      runId: "run-custom",
      traceId: "trace-custom",
      provider: scriptedProvider([textStep("Hello.")]),
    });
    const { result, run } = await finish(runtime, handle);
    expect([result.runId, result.traceId]).toEqual(["run-custom", "trace-custom"]);
    expect(run).toMatchObject({ runId: "run-custom", traceId: "trace-custom", sessionId: "s1" });
  });

  it("keeps the ledger pairing when the model reuses a call id in a later step", async () => {
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Check twice.",
      provider: scriptedProvider([
        callStep("c1", "lookup", { i: 1 }),
        callStep("c1", "lookup", { i: 2 }),
        textStep("Both found."),
      ]),
      tools: [lookupTool()],
    });
    const { result, ...ledger } = await finish(runtime, handle);
    expect(result.terminalState).toBe("completed");
    expect(ledger.receipts.map((receipt) => receipt.callId)).toEqual(["c1", "c1_2"]);
    expect(
      handle.transcript
        .getSnapshot()
        .context.messages.flatMap((message) => (message.role === "tool" ? [message.callId] : [])),
    ).toEqual(["c1", "c1_2"]);
    expect(ledgerViolations(ledger)).toEqual([]);
  });

  it("refuses to start a run without any provider", async () => {
    const runtime = await harness.makeRuntime();
    expect(() => runtime.startRun({ sessionId: "s1", input: "Hi" })).toThrow(/needs a provider/);
  });
});

describe("AgentRuntime: many runs", () => {
  it("runs 50 concurrent runs on one runtime to completion with distinct run and trace ids", async () => {
    const runtime = await harness.makeRuntime();
    const handles = Array.from({ length: 50 }, (_, index) =>
      runtime.startRun({
        sessionId: `s${index % 5}`,
        input: `Look up item ${index}.`,
        contract: OBSERVE_LOOKUP,
        provider: scriptedProvider([callStep("c1", "lookup", { i: index }), textStep(`Item ${index} found.`)]),
        tools: [lookupTool()],
      }),
    );
    const results = await Promise.all(handles.map((handle) => handle.result));

    expect(results.map((result) => result.terminalState)).toEqual(results.map(() => "completed"));
    expect(new Set(results.map((result) => result.runId)).size).toBe(50);
    expect(new Set(results.map((result) => result.traceId)).size).toBe(50);
    const ledgers = await Promise.all(results.map((result) => readLedger(runtime, result.runId)));
    for (const ledger of ledgers) {
      expect(eventTypes(ledger)).toEqual(["user_input", "tool_call", "tool_result", "assistant_output", "terminal"]);
      expect(ledgerViolations(ledger)).toEqual([]);
    }
  });

  it("lists a run in the registry while it is active and not after it ends", async () => {
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Hi",
      provider: scriptedProvider([{ text: "Hello.", delayMs: 20 }]),
    });
    expect(runtime.registry.getSnapshot().context.runs[handle.runId]).toMatchObject({
      runId: handle.runId,
      traceId: handle.traceId,
      sessionId: "s1",
      status: "running",
    });
    await handle.result;
    expect(runtime.registry.getSnapshot().context.runs).toEqual({});
  });

  it("keeps the registry in step with several overlapping runs", async () => {
    const runtime = await harness.makeRuntime();
    const handles = ["a", "b", "c"].map((id) =>
      runtime.startRun({ sessionId: id, input: "Hi", runId: id, provider: scriptedProvider([textStep("Hello.")]) }),
    );
    expect(Object.keys(runtime.registry.getSnapshot().context.runs).sort()).toEqual(["a", "b", "c"]);
    await Promise.all(handles.map((handle) => handle.result));
    expect(runtime.registry.getSnapshot().context.runs).toEqual({});
  });
});

describe("AgentRuntime.make: recovery", () => {
  it("reports a run left open by an earlier process and closes it as failed/interrupted", async () => {
    const first = await AgentRuntime.make({ database: harness.dbFile(), retry: FAST_RETRY });
    await first.run(
      Effect.gen(function* () {
        const store = yield* AgentRunStore;
        yield* store.createRun({ runId: "crashed", sessionId: "s-crash", traceId: "t-crash", contract: NONE_CONTRACT });
        yield* store.appendEvents("crashed", [
          { sequence: 1, type: "user_input", payload: { text: "Export it.", origin: "user" } },
          {
            sequence: 2,
            type: "tool_call",
            payload: { step: 1, callId: "c1", toolName: "export", arguments: {}, inputFingerprint: "f".repeat(64) },
          },
        ]);
      }),
    );
    await first.dispose();

    const second = await harness.makeRuntime();
    expect(second.recovered).toEqual([{ runId: "crashed", sessionId: "s-crash", cancelledCallIds: ["c1"] }]);
    const ledger = await readLedger(second, "crashed");
    expect(ledger.run).toMatchObject({ terminalState: "failed", failureCode: "interrupted" });
    expect(eventTypes(ledger)).toEqual(["user_input", "tool_call", "terminal"]);
    expect(ledger.events.at(-1)!.payload).toMatchObject({ terminalState: "failed", reason: "interrupted" });
    expect(receiptSummary(ledger)).toEqual([{ toolName: "export", status: "cancelled", reason: "interrupted" }]);
    expect(ledgerViolations(ledger)).toEqual([]);
  });

  it("leaves open runs alone when recoverOnStart is false", async () => {
    const first = await AgentRuntime.make({ database: harness.dbFile() });
    await first.run(
      Effect.flatMap(AgentRunStore, (store) =>
        store.createRun({ runId: "open", sessionId: "s", traceId: "t", contract: NONE_CONTRACT }),
      ),
    );
    await first.dispose();
    const second = await harness.makeRuntime({ recoverOnStart: false });
    expect(second.recovered).toEqual([]);
    expect((await readLedger(second, "open")).run?.terminalState).toBe("running");
  });

  it("refuses an owner heartbeat whose expiry is shorter than two beats", async () => {
    await expect(harness.makeRuntime({ ownerHeartbeat: { intervalMs: 1_000, expiryMs: 1_500 } })).rejects.toThrow(
      "ownerHeartbeat: expiryMs (1500) must be at least twice intervalMs (1000), both positive",
    );
  });

  it("recovers nothing on a fresh database", async () => {
    const runtime = await harness.makeRuntime();
    expect(runtime.recovered).toEqual([]);
  });
});
