/**
 * Resuming an interrupted run from its ledger, on SQLite and PostgreSQL: the run that a
 * stopped process left open is rebuilt from its events and driven on by another runtime. A call
 * whose tool_call row is durable but that never reported runs again only when its tool observes
 * or is idempotent; a mutate call is reported `side_effect_unknown` and the model is told so.
 */
import { Effect } from "effect";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { NONE_CONTRACT } from "../../src/domain/index.js";
import { AgentRuntime, defineTool } from "../../src/index.js";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import * as Ledger from "../../src/persistence/ledger.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { UNKNOWN_OUTCOME_TEXT } from "../../src/services/resumePlan.js";
import { inputFingerprint } from "../../src/services/tools/fingerprint.js";
import { BACKENDS, freshDatabase, noticePostgresSkipped } from "../support/backends.js";
import { ledgerViolations, readLedger } from "../support/runtimeHarness.js";
import { useTempDir } from "../support/tempDir.js";

const tmp = useTempDir("agentloop-resume-");
noticePostgresSkipped();

const runtimes: AgentRuntime[] = [];
afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.dispose();
});

function toolsCounting() {
  const ran: string[] = [];
  const lookup = defineTool({
    name: "lookup",
    description: "Looks an order up.",
    kind: "observe",
    input: z.object({ order: z.string() }),
    execute: async ({ order }) => {
      ran.push(`lookup ${order}`);
      return { status: "ok", output: `order ${order}: shipped` };
    },
  });
  const refund = defineTool({
    name: "refund",
    description: "Refunds an order.",
    kind: "mutate",
    input: z.object({ order: z.string() }),
    execute: async ({ order }) => {
      ran.push(`refund ${order}`);
      return { status: "ok", output: "refunded", evidence: { changed: true } };
    },
  });
  return { ran, tools: [lookup, refund] };
}

const toolCall = (sequence: number, callId: string, toolName: string, order: string) => ({
  sequence,
  type: "tool_call" as const,
  payload: { step: 1, callId, toolName, arguments: { order }, inputFingerprint: inputFingerprint(toolName, { order }) },
});

/**
 * What a process that died mid-step leaves: the run, its input, two tool_call rows without
 * results and — `started` — the start records of calls whose executors it had invoked.
 */
async function interruptedRun(database: string, started: ReadonlyArray<"lookup" | "refund"> = ["lookup", "refund"]) {
  await Effect.runPromise(
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun({ runId: "r1", sessionId: "s1", traceId: "t1", contract: NONE_CONTRACT }, [
        { sequence: 1, type: "user_input", payload: { text: "Check order 7 and refund it.", origin: "user" } },
      ]);
      yield* store.appendEvents("r1", [toolCall(2, "c1", "lookup", "7"), toolCall(3, "c2", "refund", "7")]);
      const at = new Date().toISOString();
      yield* store.startCalls(
        "r1",
        started.map((toolName) => ({
          callId: toolName === "lookup" ? "c1" : "c2",
          toolName,
          mayRepeat: toolName === "lookup",
          startedAt: at,
        })),
      );
    }).pipe(Effect.provide(Ledger.layer({ filename: database, owner: false }))),
  );
}

describe.each(BACKENDS)("resumeRun on %s", (backend) => {
  it("re-runs the observe call, reports the mutate call as side_effect_unknown and ends once", async () => {
    const database = await freshDatabase(backend, tmp.path("ledger.db"));
    await interruptedRun(database);
    const { ran, tools } = toolsCounting();
    const runtime = await AgentRuntime.make({
      database,
      recoverOnStart: false,
      tools,
      provider: scriptedProvider([
        {
          text: "Order 7 has shipped. The refund's outcome is unknown; please check before retrying.",
          expectContext: ["order 7: shipped", UNKNOWN_OUTCOME_TEXT],
        },
      ]),
    });
    runtimes.push(runtime);
    const handle = await runtime.resumeRun("r1");
    const result = await handle.result;
    expect(result).toMatchObject({ terminalState: "completed", steps: 2 });
    expect(ran).toEqual(["lookup 7"]);
    const ledger = await readLedger(runtime, "r1");
    expect(ledgerViolations(ledger)).toEqual([]);
    expect(ledger.events.map((event) => event.type)).toEqual([
      "user_input",
      "tool_call",
      "tool_call",
      "tool_result",
      "tool_result",
      "assistant_output",
      "terminal",
    ]);
    const byCall = Object.fromEntries(ledger.receipts.map((receipt) => [receipt.callId, receipt]));
    expect(byCall.c1).toMatchObject({ status: "ok", toolName: "lookup" });
    expect(byCall.c2).toMatchObject({
      status: "cancelled",
      reason: "interrupted",
      evidence: expect.objectContaining({ side_effect_unknown: true, started: true }),
    });
  });

  it("runs a call that never started — whatever its kind — once, and says it started only from its record", async () => {
    const database = await freshDatabase(backend, tmp.path("ledger.db"));
    await interruptedRun(database, ["lookup"]);
    const { ran, tools } = toolsCounting();
    const runtime = await AgentRuntime.make({
      database,
      recoverOnStart: false,
      tools,
      provider: scriptedProvider([{ text: "Order 7 has shipped and its refund went through." }]),
    });
    runtimes.push(runtime);
    const result = await (await runtime.resumeRun("r1")).result;
    expect(result.terminalState).not.toBe("failed");
    expect([...ran].sort()).toEqual(["lookup 7", "refund 7"]);
    const ledger = await readLedger(runtime, "r1");
    expect(ledgerViolations(ledger)).toEqual([]);
    const byCall = Object.fromEntries(ledger.receipts.map((receipt) => [receipt.callId, receipt]));
    expect(byCall.c2).toMatchObject({ status: "ok", toolName: "refund" });
    expect(byCall.c2?.evidence.side_effect_unknown).toBeUndefined();
    const starts = await runtime.run(Effect.flatMap(AgentRunStore, (store) => store.listStarts("r1")));
    expect(starts.map((start) => [start.callId, start.attempt])).toEqual([
      ["c1", 1],
      ["c1", 2],
      ["c2", 1],
    ]);
  });

  it("never duplicates an event: a second resume of the finished run is refused and writes nothing", async () => {
    const database = await freshDatabase(backend, tmp.path("ledger.db"));
    await interruptedRun(database);
    const { tools } = toolsCounting();
    const runtime = await AgentRuntime.make({
      database,
      recoverOnStart: false,
      tools,
      provider: scriptedProvider([{ text: "Done looking." }]),
    });
    runtimes.push(runtime);
    await (await runtime.resumeRun("r1")).result;
    const before = await readLedger(runtime, "r1");
    await expect(runtime.resumeRun("r1")).rejects.toThrow(/already ended completed/);
    expect(await readLedger(runtime, "r1")).toEqual(before);
  });

  it("refuses to resume a run whose owner is alive and holds the lease", async () => {
    const database = await freshDatabase(backend, tmp.path("ledger.db"));
    const { tools } = toolsCounting();
    const owner = await AgentRuntime.make({
      database,
      tools,
      provider: scriptedProvider([
        { toolCalls: [{ id: "c1", name: "lookup", arguments: { order: "9" } }], delayMs: 60_000 },
      ]),
    });
    runtimes.push(owner);
    const handle = owner.startRun({ runId: "live", sessionId: "s", input: "Look 9 up." });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const other = await AgentRuntime.make({ database, recoverOnStart: false, tools, provider: scriptedProvider([]) });
    runtimes.push(other);
    await expect(other.resumeRun("live")).rejects.toThrow(/driven by a live runtime/);
    handle.cancel();
    expect((await handle.result).terminalState).toBe("cancelled");
  });

  it("takes an abandoned run over on its own when it supervises", async () => {
    const database = await freshDatabase(backend, tmp.path("ledger.db"));
    await interruptedRun(database);
    const { ran, tools } = toolsCounting();
    const resumed: string[] = [];
    const results: Promise<unknown>[] = [];
    const runtime = await AgentRuntime.make({
      database,
      tools,
      provider: scriptedProvider([{ text: "Order 7 has shipped." }]),
      supervise: {
        intervalMs: 100,
        onResumed: (handle) => {
          resumed.push(handle.runId);
          results.push(handle.result);
        },
      },
    });
    runtimes.push(runtime);
    await expect.poll(() => resumed, { timeout: 10_000 }).toEqual(["r1"]);
    await Promise.all(results);
    expect(ran).toEqual(["lookup 7"]);
    expect(ledgerViolations(await readLedger(runtime, "r1"))).toEqual([]);
  });
});
