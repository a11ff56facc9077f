/**
 * Cancels and approval decisions from another runtime on the same ledger: the request or decision
 * is a ledger row, and the runtime driving the run acts on it (announced on PostgreSQL, read on a
 * short poll on SQLite). A queued run is closed by whoever cancels it.
 */
import { Effect } from "effect";
import Pg from "pg";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import { recordApprovalDecision } from "../../src/persistence/approvals.js";
import { Dialect } from "../../src/persistence/engine/Dialect.js";
import type { AgentRuntime, RunHandle } from "../../src/runtime/AgentRuntime.js";
import { approvedDecision } from "../../src/runtime/runtimeConfig.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { defineTool } from "../../src/services/tools/Tool.js";
import { BACKENDS, freshDatabase, noticePostgresSkipped, sharedLedger } from "../support/backends.js";
import { eventually, waitUntilAborted } from "../support/remoteControl.js";
import { callStep, textStep, useRuntimeHarness } from "../support/runtimeHarness.js";

const harness = useRuntimeHarness("agentloop-cancel-");
noticePostgresSkipped();

const sendMessage = (sent: unknown[]) =>
  defineTool({
    name: "send_message",
    description: "Sends a message.",
    kind: "deliver",
    input: z.object({ text: z.string() }),
    execute: async (args) => {
      sent.push(args);
      return { status: "ok", output: { sent: true }, evidence: { message_id: "m-1" } };
    },
  });

async function started(handle: RunHandle, type: "tool_started" | "approval_requested") {
  for await (const event of handle.events) if (event.type === type) return event;
  throw new Error(`the run ended without ${type}`);
}

describe.each(BACKENDS)("control from another runtime on %s", (backend) => {
  const { makeRuntime } = sharedLedger(harness, backend, { cancelPollMs: 20 });

  const waitingRun = (runtime: AgentRuntime) =>
    runtime.startRun({
      sessionId: "s",
      input: "Wait for the operator.",
      provider: scriptedProvider([callStep("c1", "wait_for_operator", {}), textStep("Stopped.")]),
      tools: [waitUntilAborted],
    });

  it("cancelRun in one runtime cancels the run another drives: it ends cancelled with a cancelled receipt", async () => {
    const driver = await makeRuntime();
    const handle = waitingRun(driver);
    await started(handle, "tool_started");
    const other = await makeRuntime();
    await other.cancelRun(handle.runId, { requestedBy: "ops" });
    const result = await handle.result;
    expect([result.terminalState, result.terminalReason]).toEqual(["cancelled", "cancelled_by_user"]);
    const receipts = await other.ledger.listReceipts(handle.runId);
    expect(receipts.map((receipt) => [receipt.callId, receipt.status])).toEqual([["c1", "cancelled"]]);
  });

  it("cancelRun of a run still in the queue closes it cancelled at once, and no worker drives it", async () => {
    const sent: unknown[] = [];
    const agents = {
      notifier: {
        provider: scriptedProvider([callStep("c1", "send_message", { text: "hi" }), textStep("Sent.")]),
        tools: [sendMessage(sent)],
      },
    };
    const producer = await makeRuntime({ agents });
    const { runId } = await producer.enqueueRun({ agent: "notifier", sessionId: "s", input: "Say hi." });
    await producer.cancelRun(runId);
    const run = await producer.ledger.getRun(runId);
    expect([run?.terminalState, run?.failureCode]).toEqual(["cancelled", "cancelled_by_user"]);
    expect(await producer.run(Effect.flatMap(AgentRunStore, (store) => store.findQueuedRuns(10)))).toEqual([]);
    const worker = await makeRuntime({ agents, worker: { pollMs: 10 } });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(sent).toEqual([]);
    expect((await worker.ledger.listEvents(runId)).map((event) => event.type)).toEqual(["user_input", "terminal"]);
  });

  const parkedRun = async (tools: ReturnType<typeof sendMessage>[]) => {
    const first = await makeRuntime({ approval: { kinds: ["deliver"] } });
    const handle = first.startRun({
      sessionId: "s",
      input: "Say hi to #ops",
      provider: scriptedProvider([callStep("c1", "send_message", { text: "hi" })]),
      tools,
    });
    await started(handle, "approval_requested");
    return { first, handle };
  };

  it("cancelRun closes a run parked when its runtime shut down: cancelled, the waiting call never ran", async () => {
    const sent: unknown[] = [];
    const { first, handle } = await parkedRun([sendMessage(sent)]);
    // Shutting down parks a run that waits for a person: it stays open, driven by nobody.
    await first.dispose();
    const asker = await makeRuntime();
    await asker.cancelRun(handle.runId, { requestedBy: "ops" });
    const run = await asker.ledger.getRun(handle.runId);
    expect([run?.terminalState, run?.failureCode]).toEqual(["cancelled", "cancelled_by_user"]);
    const receipts = await asker.ledger.listReceipts(handle.runId);
    expect(
      receipts.map((receipt) => [receipt.callId, receipt.status, receipt.reason, receipt.evidence.started]),
    ).toEqual([["c1", "cancelled", "cancelled_by_user", false]]);
    expect(sent).toEqual([]);
  });

  it("a cancel its live runtime missed is honoured by the runtime that resumes the run later", async () => {
    const sent: unknown[] = [];
    const tools = [sendMessage(sent)];
    const { first, handle } = await parkedRun(tools);
    // The driver misses the request (as if its announcement were lost), then shuts down.
    await (first as unknown as { stopLedgerWatch: () => Promise<void> }).stopLedgerWatch();
    const asker = await makeRuntime();
    await asker.cancelRun(handle.runId);
    expect((await asker.ledger.getRun(handle.runId))?.terminalState).toBe("running");
    await first.dispose();
    const successor = await makeRuntime({ approval: { kinds: ["deliver"] } });
    const resumed = await successor.resumeRun(handle.runId, {
      provider: scriptedProvider([textStep("Stopped.")]),
      tools,
    });
    const result = await resumed.result;
    expect([result.terminalState, result.terminalReason]).toEqual(["cancelled", "cancelled_by_user"]);
    expect(sent).toEqual([]);
  });

  it("cancelRun refuses a run that ended and one that is not in the ledger", async () => {
    const runtime = await makeRuntime();
    const handle = runtime.startRun({ sessionId: "s", input: "Hi", provider: scriptedProvider([textStep("Hello.")]) });
    await handle.result;
    await expect(runtime.cancelRun(handle.runId)).rejects.toThrow(`cannot cancel ${handle.runId}: the run has ended`);
    await expect(runtime.cancelRun("nope")).rejects.toThrow("cannot cancel nope: no such run in the ledger");
  });

  it("approve in one runtime runs a call that waits in a run another drives", async () => {
    const sent: unknown[] = [];
    const driver = await makeRuntime({ approval: { kinds: ["deliver"], pollMs: 20 } });
    const handle = driver.startRun({
      sessionId: "s",
      input: "Say hi to #ops",
      contract: { evidenceMode: "deliver", requiredToolNames: ["send_message"] },
      provider: scriptedProvider([callStep("c1", "send_message", { text: "hi" }), textStep("Sent (message m-1).")]),
      tools: [sendMessage(sent)],
    });
    await started(handle, "approval_requested");
    const other = await makeRuntime();
    await other.approve(handle.runId, "c1", { decidedBy: "lead" });
    const result = await handle.result;
    expect(result.terminalState).toBe("completed");
    expect(sent).toEqual([{ text: "hi" }]);
    await expect(other.deny(handle.runId, "c1")).rejects.toThrow("the run has ended");
  });

  it("deny in one runtime denies a call that waits in a run another drives; the call never runs", async () => {
    const sent: unknown[] = [];
    const driver = await makeRuntime({ approval: { kinds: ["deliver"], pollMs: 20 } });
    const handle = driver.startRun({
      sessionId: "s",
      input: "Say hi to #ops",
      provider: scriptedProvider([callStep("c1", "send_message", { text: "hi" }), textStep("I did not send it.")]),
      tools: [sendMessage(sent)],
    });
    await started(handle, "approval_requested");
    const other = await makeRuntime();
    await other.deny(handle.runId, "c1", { message: "not today" });
    await handle.result;
    expect(sent).toEqual([]);
    const receipts = await eventually(
      () => other.ledger.listReceipts(handle.runId),
      (found) => found.length > 0,
    );
    expect(receipts.map((receipt) => [receipt.callId, receipt.status])).toEqual([["c1", "denied"]]);
  });
});

/** Where the ledger announces requests (PostgreSQL), they reach the driving runtime without any poll. */
describe.each(BACKENDS.filter((backend) => backend === "postgres"))("announced requests on %s", (backend) => {
  const HOUR = 3_600_000;

  it("a decision made in another runtime reaches a run whose approval poll is an hour away", async () => {
    const database = await freshDatabase(backend, harness.dbFile());
    const sent: unknown[] = [];
    const driver = await harness.makeRuntime({ database, approval: { kinds: ["deliver"], pollMs: HOUR } });
    const handle = driver.startRun({
      sessionId: "s",
      input: "Say hi to #ops",
      provider: scriptedProvider([callStep("c1", "send_message", { text: "hi" }), textStep("Sent (message m-1).")]),
      tools: [sendMessage(sent)],
    });
    await started(handle, "approval_requested");
    const other = await harness.makeRuntime({ database });
    await other.approve(handle.runId, "c1");
    await handle.result;
    expect(sent).toEqual([{ text: "hi" }]);
  });

  it("a cancel asked in another runtime reaches a run although the cancel poll is an hour away", async () => {
    const database = await freshDatabase(backend, harness.dbFile());
    const driver = await harness.makeRuntime({ database, cancelPollMs: HOUR });
    const handle = driver.startRun({
      sessionId: "s",
      input: "Wait for the operator.",
      provider: scriptedProvider([callStep("c1", "wait_for_operator", {}), textStep("Stopped.")]),
      tools: [waitUntilAborted],
    });
    await started(handle, "tool_started");
    const other = await harness.makeRuntime({ database });
    await other.cancelRun(handle.runId);
    expect((await handle.result).terminalState).toBe("cancelled");
  });

  it("a waiting run does not poll for decisions: one whose announcement was lost is read when LISTEN comes back", async () => {
    const database = await freshDatabase(backend, harness.dbFile());
    const sent: unknown[] = [];
    const driver = await harness.makeRuntime({ database, approval: { kinds: ["deliver"], pollMs: 20 } });
    const handle = driver.startRun({
      sessionId: "s",
      input: "Say hi to #ops",
      provider: scriptedProvider([callStep("c1", "send_message", { text: "hi" }), textStep("Sent (message m-1).")]),
      tools: [sendMessage(sent)],
    });
    await started(handle, "approval_requested");
    const other = await harness.makeRuntime({ database });
    // The decision is recorded, but its announcement never goes out.
    await other.run(
      Effect.flatMap(Dialect, (dialect) =>
        recordApprovalDecision(handle.runId, "c1", approvedDecision({ decidedBy: "lead" })).pipe(
          Effect.provideService(Dialect, { ...dialect, notify: () => Effect.void }),
        ),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(sent).toEqual([]);
    // The LISTEN connections drop; on coming back each runtime reads what it may have missed.
    const admin = new Pg.Client({ connectionString: database });
    await admin.connect();
    await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'agentloop-listen'",
    );
    await admin.end();
    expect((await handle.result).terminalState).toBe("completed");
    expect(sent).toEqual([{ text: "hi" }]);
  });
});
