import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentRuntime } from "../../src/runtime/AgentRuntime.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { defineTool, type ToolContext } from "../../src/services/tools/Tool.js";
import { callStep, ledgerViolations, readLedger, textStep, useRuntimeHarness } from "../support/runtimeHarness.js";

/**
 * Issue L: a host cancels a run with an AbortSignal, and `dispose()` cancels every run in flight,
 * writes their terminal rows and closes the ledger before it resolves.
 */

const harness = useRuntimeHarness("agentloop-shutdown-");

/** A tool that runs until its signal aborts; `started` resolves when it runs, `aborted` when it was told to stop. */
function waitingTool() {
  let markStarted!: () => void;
  let markAborted!: () => void;
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  const aborted = new Promise<void>((resolve) => {
    markAborted = resolve;
  });
  const tool = defineTool({
    name: "wait",
    description: "waits until cancelled",
    kind: "observe",
    input: z.object({}),
    timeoutMs: 60_000,
    execute: (_args, context: ToolContext) =>
      new Promise((resolve) => {
        markStarted();
        context.signal.addEventListener("abort", () => {
          markAborted();
          resolve({ status: "ok", output: "stopped" });
        });
      }),
  });
  return { tool, started, aborted };
}

const waitingScript = () => scriptedProvider([callStep("c1", "wait"), textStep("done")]);

describe("startRun({ signal })", () => {
  it("aborting the signal while a tool runs ends the run cancelled with a cancelled receipt", async () => {
    const runtime = await harness.makeRuntime();
    const { tool, started, aborted } = waitingTool();
    const controller = new AbortController();
    const handle = runtime.startRun({
      sessionId: "s",
      input: "go",
      tools: [tool],
      provider: waitingScript(),
      signal: controller.signal,
    });
    await started;
    controller.abort();
    const result = await handle.result;
    await aborted;
    expect(result).toMatchObject({ terminalState: "cancelled", terminalReason: "cancelled_by_user" });
    const ledger = await readLedger(runtime, handle.runId);
    expect(ledger.receipts.map((receipt) => receipt.status)).toEqual(["cancelled"]);
    expect(ledgerViolations(ledger)).toEqual([]);
  });

  it("a signal that is already aborted cancels the run before the model is asked", async () => {
    const runtime = await harness.makeRuntime();
    let asked = 0;
    const provider = scriptedProvider([textStep("hello")]);
    const counting = {
      ...provider,
      sample: (request: Parameters<typeof provider.sample>[0]) => {
        asked += 1;
        return provider.sample(request);
      },
    };
    const handle = runtime.startRun({
      sessionId: "s",
      input: "go",
      provider: counting,
      signal: AbortSignal.abort(),
    });
    expect((await handle.result).terminalState).toBe("cancelled");
    expect(asked).toBe(0);
  });

  it("a signal aborted after the run ended changes nothing", async () => {
    const runtime = await harness.makeRuntime();
    const controller = new AbortController();
    const handle = runtime.startRun({
      sessionId: "s",
      input: "hi",
      provider: scriptedProvider([textStep("hello")]),
      signal: controller.signal,
    });
    expect((await handle.result).terminalState).toBe("completed");
    controller.abort();
    expect((await runtime.ledger.getRun(handle.runId))?.terminalState).toBe("completed");
  });

  it("handle.cancel() cancels like the CANCEL event", async () => {
    const runtime = await harness.makeRuntime();
    const { tool, started } = waitingTool();
    const handle = runtime.startRun({ sessionId: "s", input: "go", tools: [tool], provider: waitingScript() });
    await started;
    handle.cancel();
    expect((await handle.result).terminalState).toBe("cancelled");
  });
});

describe("runtime.dispose()", () => {
  it("cancels every run in flight, writes their terminal rows and resolves only then", async () => {
    const runtime = await AgentRuntime.make({ database: harness.dbFile() });
    const first = waitingTool();
    const second = waitingTool();
    const a = runtime.startRun({ sessionId: "a", input: "go", tools: [first.tool], provider: waitingScript() });
    const b = runtime.startRun({ sessionId: "b", input: "go", tools: [second.tool], provider: waitingScript() });
    await Promise.all([first.started, second.started]);
    let settled = 0;
    for (const handle of [a, b]) void handle.result.then(() => settled++);
    await runtime.dispose();
    expect(settled).toBe(2);
    await Promise.all([first.aborted, second.aborted]);

    // The ledger is closed; a new runtime on the same file finds both runs ended, nothing to recover.
    const reopened = await harness.makeRuntime();
    expect(reopened.recovered).toEqual([]);
    for (const handle of [a, b]) {
      const ledger = await readLedger(reopened, handle.runId);
      expect(ledger.run?.terminalState).toBe("cancelled");
      expect(ledger.receipts.map((receipt) => receipt.status)).toEqual(["cancelled"]);
      expect(ledgerViolations(ledger)).toEqual([]);
    }
  });

  it("a second dispose() is a no-op that resolves with the first", async () => {
    const runtime = await AgentRuntime.make({ database: harness.dbFile() });
    const first = runtime.dispose();
    expect(runtime.dispose()).toBe(first);
    await first;
    await runtime.dispose();
  });

  it("Symbol.asyncDispose disposes the runtime", async () => {
    const runtime = await AgentRuntime.make({ database: harness.dbFile() });
    await runtime[Symbol.asyncDispose]();
    expect(() => runtime.startRun({ sessionId: "s", input: "x", provider: scriptedProvider([]) })).toThrow(/disposed/);
  });

  it("a provider call that ignores interruption does not hold up the cancel", async () => {
    const stuck = { ...scriptedProvider([]), sample: () => Effect.uninterruptible(Effect.never) };
    const runtime = await AgentRuntime.make({ database: harness.dbFile() });
    const handle = runtime.startRun({ sessionId: "s", input: "go", provider: stuck });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await runtime.dispose();
    const reopened = await harness.makeRuntime();
    expect(reopened.recovered).toEqual([]);
    expect((await reopened.ledger.getRun(handle.runId))?.terminalState).toBe("cancelled");
  });
});

describe("runtime.ledger", () => {
  it("reads runs, events and receipts through Promises", async () => {
    const runtime = await harness.makeRuntime();
    const { tool } = waitingTool();
    const lookup = defineTool({
      name: "lookup",
      description: "d",
      kind: "observe",
      input: z.object({}),
      execute: async () => ({ status: "ok", output: "found" }),
    });
    const handle = runtime.startRun({
      sessionId: "sess",
      input: "find it",
      tools: [lookup, tool],
      provider: scriptedProvider([callStep("c1", "lookup"), textStep("found it")]),
    });
    const result = await handle.result;
    expect(await runtime.ledger.getRun(handle.runId)).toMatchObject({
      runId: handle.runId,
      terminalState: "completed",
    });
    expect((await runtime.ledger.listEvents(handle.runId)).map((event) => event.type)).toEqual([
      "user_input",
      "tool_call",
      "tool_result",
      "assistant_output",
      "terminal",
    ]);
    expect((await runtime.ledger.listReceipts(handle.runId)).map((receipt) => receipt.status)).toEqual(["ok"]);
    expect((await runtime.ledger.listSessionRuns("sess")).map((run) => run.runId)).toEqual([handle.runId]);
    expect((await runtime.ledger.findRunByTrace(result.traceId))?.runId).toBe(handle.runId);
    expect(await runtime.ledger.getRun("run_missing")).toBeUndefined();
  });
});
