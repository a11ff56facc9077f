import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { CompletionContractInput, LoopEvent } from "../../src/domain/index.js";
import { listApprovals, recordApprovalDecision } from "../../src/persistence/approvals.js";
import type { RunHandle } from "../../src/runtime/AgentRuntime.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { fixtureTool } from "../../src/services/tools/fixtureTool.js";
import { defineTool } from "../../src/services/tools/Tool.js";
import {
  callStep,
  finish,
  ledgerViolations,
  receiptSummary,
  textStep,
  useRuntimeHarness,
} from "../support/runtimeHarness.js";

const harness = useRuntimeHarness("agentloop-approval-");

const DELIVER: CompletionContractInput = { evidenceMode: "deliver", requiredToolNames: ["send_message"] };

/** A deliver fixture tool that records what it was called with. */
function sendTool(seen: unknown[] = []) {
  const tool = fixtureTool({
    name: "send_message",
    kind: "deliver",
    outcomes: [{ status: "ok", output: { sent: true }, evidence: { message_id: "m-1" } }],
  });
  return {
    ...tool,
    execute: (args: unknown, context: Parameters<NonNullable<typeof tool.execute>>[1]) => {
      seen.push(args);
      return tool.execute!(args, context);
    },
  };
}

/** The first `approval_requested` event of a run. */
async function firstRequest(handle: RunHandle): Promise<Extract<LoopEvent, { type: "approval_requested" }>> {
  for await (const event of handle.events) if (event.type === "approval_requested") return event;
  throw new Error("the run ended without asking for approval");
}

/** The call, the answer, and (for a DELIVER run without a delivery) the answer after the correction turn. */
const sendSteps = (answer = "Sent the report (message m-1).") => [
  callStep("c1", "send_message", { channel: "ops", text: "report" }),
  textStep(answer),
  textStep(answer),
];

describe("approval of tool calls", () => {
  it("runs an approved call and records who approved it in the ledger and the receipt", async () => {
    const runtime = await harness.makeRuntime();
    const seen: unknown[] = [];
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Send the report to #ops",
      contract: DELIVER,
      provider: scriptedProvider(sendSteps()),
      tools: [sendTool(seen)],
      approval: { kinds: ["deliver"] },
    });
    const request = await firstRequest(handle);
    expect(request).toMatchObject({ callId: "c1", toolName: "send_message", arguments: { channel: "ops" } });
    expect(handle.actor.getSnapshot().matches({ active: { approval: "awaitingApproval" } })).toBe(true);
    expect(seen).toEqual([]);
    await handle.approve("c1", { decidedBy: "alice" });
    const { result, ...ledger } = await finish(runtime, handle);
    expect(result.terminalState).toBe("completed");
    expect(seen).toEqual([{ channel: "ops", text: "report" }]);
    expect(ledger.receipts[0]?.evidence.approval).toMatchObject({
      decision: "approved",
      decidedBy: "alice",
      scope: "once",
    });
    const approvals = await runtime.run(listApprovals(result.runId));
    expect(approvals[0]?.decision).toMatchObject({ decision: "approved", decidedBy: "alice" });
    expect(ledgerViolations(ledger)).toEqual([]);
  });

  it("runs the call with edited arguments when the approval edits them", async () => {
    const runtime = await harness.makeRuntime();
    const seen: unknown[] = [];
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Send the report to #ops",
      contract: DELIVER,
      provider: scriptedProvider(sendSteps()),
      tools: [sendTool(seen)],
      approval: { tools: ["send_message"] },
    });
    await firstRequest(handle);
    await handle.approve("c1", { arguments: { channel: "ops-review", text: "report" } });
    const { result, ...ledger } = await finish(runtime, handle);
    expect(result.terminalState).toBe("completed");
    expect(seen).toEqual([{ channel: "ops-review", text: "report" }]);
    expect(ledger.receipts[0]?.evidence.approval).toMatchObject({ argumentsEdited: true });
  });

  it("gives a denied call a denied receipt and tells the model why; the DELIVER run ends unverified", async () => {
    const runtime = await harness.makeRuntime();
    const seen: unknown[] = [];
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Send the report to #ops",
      contract: DELIVER,
      provider: scriptedProvider(sendSteps("I could not send it: the send was denied.")),
      tools: [sendTool(seen)],
      approval: { kinds: ["deliver"] },
    });
    await firstRequest(handle);
    await handle.deny("c1", { message: "not today" });
    const { result, ...ledger } = await finish(runtime, handle);
    expect(seen).toEqual([]);
    expect(result.terminalState).toBe("unverified");
    expect(receiptSummary(ledger)).toEqual([{ toolName: "send_message", status: "denied", reason: "approval_denied" }]);
    expect(ledger.receipts[0]).toMatchObject({ reason: "approval_denied", verificationStatus: "unverified" });
    expect(ledger.receipts[0]?.evidence.approval).toMatchObject({ decision: "denied", message: "not today" });
    const toolMessage = handle.transcript.getSnapshot().context.messages.find((message) => message.role === "tool");
    expect(toolMessage?.content).toContain("approval was denied: not today");
    expect(ledgerViolations(ledger)).toEqual([]);
  });

  it("expires a call nobody decides within the policy's timeout", async () => {
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Send the report to #ops",
      contract: DELIVER,
      provider: scriptedProvider(sendSteps("Not sent: nobody approved it.")),
      tools: [sendTool()],
      approval: { kinds: ["deliver"], timeoutMs: 80 },
    });
    const { result, ...ledger } = await finish(runtime, handle);
    expect(result.terminalState).toBe("unverified");
    expect(ledger.receipts[0]).toMatchObject({ status: "expired", reason: "approval_expired" });
    expect(ledger.receipts[0]?.evidence.approval).toMatchObject({ decision: "expired", timeoutMs: 80 });
  });

  it("cancels a waiting call with the run: a cancelled receipt that says it never ran", async () => {
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Send the report to #ops",
      contract: DELIVER,
      provider: scriptedProvider(sendSteps()),
      tools: [sendTool()],
      approval: { kinds: ["deliver"] },
    });
    await firstRequest(handle);
    handle.cancel();
    const { result, ...ledger } = await finish(runtime, handle);
    expect(result.terminalState).toBe("cancelled");
    expect(ledger.receipts[0]).toMatchObject({ status: "cancelled", reason: "cancelled_by_user" });
    expect(ledger.receipts[0]?.evidence).toMatchObject({ started: false, approval: { decision: "cancelled" } });
  });

  it("does not ask again in the same session after an approval with scope session", async () => {
    const runtime = await harness.makeRuntime();
    const policy = { kinds: ["deliver" as const] };
    const first = runtime.startRun({
      sessionId: "s1",
      input: "Send it",
      contract: DELIVER,
      provider: scriptedProvider(sendSteps()),
      tools: [sendTool()],
      approval: policy,
    });
    await firstRequest(first);
    await first.approve("c1", { scope: "session" });
    expect((await first.result).terminalState).toBe("completed");
    const second = runtime.startRun({
      sessionId: "s1",
      input: "Send it again",
      contract: DELIVER,
      provider: scriptedProvider(sendSteps()),
      tools: [sendTool()],
      approval: policy,
    });
    const events: LoopEvent[] = [];
    for await (const event of second.events) events.push(event);
    expect(events.some((event) => event.type === "approval_requested")).toBe(false);
    expect((await second.result).terminalState).toBe("completed");
  });

  it("approves the other waiting calls of the tool with a run-scope approval, and lists the calls that wait", async () => {
    const runtime = await harness.makeRuntime();
    const seen: unknown[] = [];
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Send the report to #ops and #dev",
      contract: DELIVER,
      provider: scriptedProvider([
        {
          toolCalls: [
            { id: "c1", name: "send_message", arguments: { channel: "ops", text: "report" } },
            { id: "c2", name: "send_message", arguments: { channel: "dev", text: "report" } },
          ],
          finishReason: "tool_calls",
        },
        textStep("Sent the report to both channels (message m-1)."),
      ]),
      tools: [sendTool(seen)],
      approval: { kinds: ["deliver"] },
    });
    const announced: string[] = [];
    for await (const event of handle.events) {
      if (event.type !== "approval_requested") continue;
      announced.push(event.callId);
      if (announced.length === 2) break;
    }
    expect(announced.sort()).toEqual(["c1", "c2"]);
    expect(handle.waitingApprovals().map((request) => request.callId)).toEqual(["c1", "c2"]);
    await handle.approve("c1", { scope: "run", decidedBy: "alice", arguments: { channel: "ops", text: "edited" } });
    const { result, ...ledger } = await finish(runtime, handle);
    expect(result.terminalState).toBe("completed");
    expect(handle.waitingApprovals()).toEqual([]);
    // The edit belongs to the call it was written for; the other call runs as the model asked.
    expect(seen).toEqual([
      { channel: "ops", text: "edited" },
      { channel: "dev", text: "report" },
    ]);
    expect(ledger.receipts.map((receipt) => [receipt.callId, receipt.status, receipt.evidence.approval])).toEqual([
      ["c1", "ok", expect.objectContaining({ decision: "approved", scope: "run", decidedBy: "alice" })],
      ["c2", "ok", expect.not.objectContaining({ arguments: expect.anything() })],
    ]);
    expect(ledger.receipts[1]?.evidence.approval).toMatchObject({
      decision: "approved",
      scope: "run",
      decidedBy: "alice",
    });
    // Only the host's decision is a row; the other call was approved by its scope.
    const rows = await runtime.run(listApprovals(result.runId));
    expect(rows.map((row) => [row.callId, row.decision?.decision ?? null])).toEqual([
      ["c1", "approved"],
      ["c2", null],
    ]);
    expect(ledgerViolations(ledger)).toEqual([]);
  });

  it("refuses a second decision for the same call with a clear error", async () => {
    const runtime = await harness.makeRuntime();
    // Two calls that wait: the run is still running when c1 is decided a second time, however
    // fast it would otherwise go on to its end.
    const [first, second] = [
      callStep("c1", "send_message", { channel: "ops", text: "report" }),
      callStep("c2", "send_message", { channel: "ops", text: "report" }),
    ];
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Send it",
      contract: DELIVER,
      provider: scriptedProvider([
        { ...first, toolCalls: [...(first.toolCalls ?? []), ...(second.toolCalls ?? [])] },
        ...sendSteps().slice(1),
      ]),
      tools: [sendTool()],
      approval: { kinds: ["deliver"] },
    });
    await firstRequest(handle);
    await handle.deny("c1", { message: "no" });
    await expect(handle.approve("c1")).rejects.toThrow(/cannot approve c1 of .*: it has a decision already/);
    await handle.deny("c2", { message: "no" });
    expect((await handle.result).terminalState).toBe("unverified");
  });

  it("refuses edited arguments over the documented limits in one line, writes nothing, and the call still waits", async () => {
    const runtime = await harness.makeRuntime();
    const seen: unknown[] = [];
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Send it",
      contract: DELIVER,
      provider: scriptedProvider(sendSteps()),
      tools: [sendTool(seen)],
      approval: { kinds: ["deliver"] },
    });
    await firstRequest(handle);
    let deep: unknown = "report";
    for (let level = 0; level < 5_000; level++) deep = [deep];
    await expect(handle.approve("c1", { arguments: { channel: "ops", text: deep } as never })).rejects.toThrow(
      /^invalid approval decision: the edited arguments nest deeper than 64 levels, the limit for edited arguments$/,
    );
    await expect(handle.approve("c1", { arguments: { channel: "ops", text: "x".repeat(300 * 1024) } })).rejects.toThrow(
      /^invalid approval decision: the edited arguments are \d+ bytes of JSON, over the limit of 262144 bytes/,
    );
    const [record] = await runtime.run(listApprovals(handle.runId));
    expect(record?.decision).toBeNull();
    await handle.approve("c1", { decidedBy: "alice" });
    expect((await handle.result).terminalState).toBe("completed");
    expect(seen).toEqual([{ channel: "ops", text: "report" }]);
  });

  it("asks for a tool whose own definition requires approval, with its reason", async () => {
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Send it",
      contract: DELIVER,
      provider: scriptedProvider(sendSteps()),
      tools: [{ ...sendTool(), requiresApproval: "messages leave the company" }],
    });
    const request = await firstRequest(handle);
    expect(request.reason).toBe("messages leave the company");
    await handle.approve("c1");
    expect((await handle.result).terminalState).toBe("completed");
  });

  it("parks a waiting run on dispose; a new runtime resumes it into the same wait and the approval runs the call", async () => {
    const file = harness.dbFile();
    const first = await harness.makeRuntime({ database: file });
    const handle = first.startRun({
      sessionId: "s1",
      input: "Send the report to #ops",
      contract: DELIVER,
      provider: scriptedProvider(sendSteps()),
      tools: [sendTool()],
      approval: { kinds: ["deliver"] },
    });
    await firstRequest(handle);
    await first.dispose();
    const second = await harness.makeRuntime({ database: file });
    expect(second.recovered).toEqual([]);
    expect((await second.ledger.getRun(handle.runId))?.terminalState).toBe("running");
    const seen: unknown[] = [];
    const resumed = await second.resumeRun(handle.runId, {
      provider: scriptedProvider([textStep("Sent the report (message m-1).")]),
      tools: [sendTool(seen)],
      approval: { kinds: ["deliver"] },
    });
    const request = await firstRequest(resumed);
    expect(request.callId).toBe("c1");
    expect(resumed.actor.getSnapshot().matches({ active: { approval: "awaitingApproval" } })).toBe(true);
    await resumed.approve("c1", { decidedBy: "bob" });
    const { result, ...ledger } = await finish(second, resumed);
    expect(result.terminalState).toBe("completed");
    expect(seen).toHaveLength(1);
    expect(ledgerViolations(ledger)).toEqual([]);
  });

  it('cancels a waiting run on dispose({ waiting: "cancel" }): a cancelled run and a cancelled receipt for the waiting call', async () => {
    const file = harness.dbFile();
    const runtime = await harness.makeRuntime({ database: file });
    const seen: unknown[] = [];
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Send the report to #ops",
      contract: DELIVER,
      provider: scriptedProvider(sendSteps()),
      tools: [sendTool(seen)],
      approval: { kinds: ["deliver"] },
    });
    await firstRequest(handle);
    await runtime.dispose({ waiting: "cancel" });
    expect((await handle.result).terminalState).toBe("cancelled");
    const reopened = await harness.makeRuntime({ database: file });
    expect((await reopened.ledger.getRun(handle.runId))?.terminalState).toBe("cancelled");
    const receipts = await reopened.ledger.listReceipts(handle.runId);
    expect(receipts.map((receipt) => [receipt.callId, receipt.status])).toEqual([["c1", "cancelled"]]);
    expect(seen).toEqual([]);
  });

  it("applies a denial made while no runtime drove the run as soon as the run is resumed", async () => {
    const file = harness.dbFile();
    const first = await harness.makeRuntime({ database: file });
    const handle = first.startRun({
      sessionId: "s1",
      input: "Send the report to #ops",
      contract: DELIVER,
      provider: scriptedProvider(sendSteps()),
      tools: [sendTool()],
      approval: { kinds: ["deliver"] },
    });
    await firstRequest(handle);
    await first.dispose();
    // Another process (here: a runtime without the run) writes the decision into the ledger.
    const other = await harness.makeRuntime({ database: file });
    await other.run(
      recordApprovalDecision(handle.runId, "c1", {
        decision: "denied",
        message: "no",
        decidedBy: "cli:carol",
        decidedAt: new Date().toISOString(),
      }),
    );
    const resumed = await other.resumeRun(handle.runId, {
      provider: scriptedProvider([textStep("Not sent."), textStep("Not sent.")]),
      tools: [sendTool()],
    });
    const { result, ...ledger } = await finish(other, resumed);
    expect(result.terminalState).toBe("unverified");
    expect(ledger.receipts[0]).toMatchObject({ status: "denied", evidence: { approval: { decidedBy: "cli:carol" } } });
  });

  it("asks for the calls a host function of the arguments picks, with the reason it gives", async () => {
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Send two messages",
      contract: DELIVER,
      provider: scriptedProvider([
        {
          toolCalls: [
            { id: "c1", name: "send_message", arguments: { channel: "ops", text: "a" } },
            { id: "c2", name: "send_message", arguments: { channel: "all-company", text: "b" } },
          ],
          finishReason: "tool_calls",
        },
        textStep("Sent both (message m-1)."),
      ]),
      tools: [sendTool()],
      approval: {
        when: ({ arguments: args }) =>
          (args as { channel?: string }).channel === "all-company" ? "company-wide messages need approval" : false,
      },
    });
    const request = await firstRequest(handle);
    expect(request).toMatchObject({ callId: "c2", reason: "company-wide messages need approval" });
    await handle.approve("c2");
    const { result, ...ledger } = await finish(runtime, handle);
    expect(result.terminalState).toBe("completed");
    expect(ledger.receipts.map((receipt) => [receipt.callId, receipt.evidence.approval !== undefined])).toEqual([
      ["c1", false],
      ["c2", true],
    ]);
  });

  it("validates edited arguments again: arguments the schema refuses get an invalid_arguments receipt", async () => {
    const runtime = await harness.makeRuntime();
    const strictSend = defineTool({
      name: "send_message",
      description: "sends",
      kind: "deliver",
      input: z.object({ channel: z.string(), text: z.string() }),
      requiresApproval: true,
      execute: async () => ({ status: "ok", output: { sent: true }, evidence: { message_id: "m-1" } }),
    });
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Send it",
      contract: DELIVER,
      provider: scriptedProvider(sendSteps("Not sent: the arguments were refused.")),
      tools: [strictSend],
    });
    await firstRequest(handle);
    await handle.approve("c1", { arguments: { channel: 7 } });
    const { result, ...ledger } = await finish(runtime, handle);
    expect(result.terminalState).toBe("unverified");
    expect(ledger.receipts[0]).toMatchObject({ status: "error", reason: "invalid_arguments" });
  });
});

describe("approvals of scope session across runtimes on one ledger", () => {
  it("a tool approved for the session in one runtime asks no more in a run of that session another runtime drives", async () => {
    const sentA: unknown[] = [];
    const first = await harness.makeRuntime({ approval: { kinds: ["deliver"] } });
    const run1 = first.startRun({
      sessionId: "shared-session",
      input: "Send the report to #ops",
      contract: DELIVER,
      provider: scriptedProvider(sendSteps()),
      tools: [sendTool(sentA)],
    });
    const request = await firstRequest(run1);
    await run1.approve(request.callId, { scope: "session" });
    expect((await run1.result).terminalState).toBe("completed");

    const sentB: unknown[] = [];
    const second = await harness.makeRuntime({ approval: { kinds: ["deliver"] } });
    const run2 = second.startRun({
      sessionId: "shared-session",
      input: "Send it again",
      contract: DELIVER,
      provider: scriptedProvider(sendSteps()),
      tools: [sendTool(sentB)],
    });
    const seen: string[] = [];
    for await (const event of run2.events) seen.push(event.type);
    expect(seen).not.toContain("approval_requested");
    expect((await run2.result).terminalState).toBe("completed");
    expect(sentB).toHaveLength(1);
  });

  it("a grant for one session does not reach a run of another session", async () => {
    const first = await harness.makeRuntime({ approval: { kinds: ["deliver"] } });
    const run1 = first.startRun({
      sessionId: "granted",
      input: "Send the report to #ops",
      contract: DELIVER,
      provider: scriptedProvider(sendSteps()),
      tools: [sendTool()],
    });
    await run1.approve((await firstRequest(run1)).callId, { scope: "session" });
    await run1.result;
    const second = await harness.makeRuntime({ approval: { kinds: ["deliver"] } });
    const run2 = second.startRun({
      sessionId: "other",
      input: "Send it",
      contract: DELIVER,
      provider: scriptedProvider(sendSteps()),
      tools: [sendTool()],
    });
    const request = await firstRequest(run2);
    expect(request.toolName).toBe("send_message");
    run2.cancel();
    await run2.result;
  });
});
