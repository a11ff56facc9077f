import { afterEach, describe, expect, it } from "vitest";
import { scriptedProvider } from "../../../../src/services/providers/scripted.js";
import type { McpToolset } from "../../../../src/services/tools/mcp/mcpTools.js";
import { fixtureToolset, readFixtureLog, waitFor } from "../../../support/mcpFixture.js";
import {
  callStep,
  finish,
  ledgerViolations,
  receiptSummary,
  textStep,
  useRuntimeHarness,
} from "../../../support/runtimeHarness.js";

/**
 * Issue Q: MCP tools in real runs (AgentRuntime, SQLite ledger, the fixture server over stdio):
 * a DELIVER contract met by an MCP tool's message id, timeouts and cancellation that reach the
 * server as `notifications/cancelled`, and a server that dies mid-call without ending the run.
 */

const harness = useRuntimeHarness("agentloop-mcp-runs-");
let open: McpToolset[] = [];
afterEach(async () => {
  await Promise.all(open.map((toolset) => toolset.close()));
  open = [];
});

async function toolset(settings: Parameters<typeof fixtureToolset>[1] = {}) {
  const log = harness.path("server.log");
  const tools = await fixtureToolset(log, settings);
  open.push(tools);
  return { tools, log };
}

const noteStep = () => callStep("c1", "fixture__send_note", { to: "ops", text: "deploy finished" });

describe("MCP tools in a run", () => {
  it("completes a DELIVER contract with the message id of a tool the host declared deliver", async () => {
    const { tools, log } = await toolset({ kinds: { send_note: "deliver" } });
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s",
      input: "Tell ops the deploy finished.",
      contract: { evidenceMode: "deliver" },
      provider: scriptedProvider([noteStep(), textStep("Sent note-1 to ops.")]),
      tools: [...tools.tools],
    });
    const ledger = await finish(runtime, handle);
    expect(ledger.result.terminalState).toBe("completed");
    expect(ledgerViolations(ledger)).toEqual([]);
    expect(ledger.receipts[0]!.evidence).toMatchObject({
      messageId: "note-1",
      mcp_server: "fixture",
      mcp_tool: "send_note",
      mcp_request_id: readFixtureLog(log)[0]!.requestId,
      mcp_is_error: false,
    });
  });

  it("does not complete a DELIVER contract when the host left the tool's kind to its annotations", async () => {
    const { tools } = await toolset();
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s",
      input: "Tell ops the deploy finished.",
      contract: { evidenceMode: "deliver" },
      provider: scriptedProvider([noteStep(), textStep("Sent."), textStep("Sent.")]),
      tools: [...tools.tools],
    });
    const { result } = await finish(runtime, handle);
    expect(result.terminalState).not.toBe("completed");
  });

  it("times a hanging call out, sends the server notifications/cancelled, and the run goes on", async () => {
    const { tools, log } = await toolset({ timeoutMs: 300 });
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s",
      input: "Wait for it.",
      provider: scriptedProvider([callStep("c1", "fixture__hang"), textStep("The server did not answer.")]),
      tools: [...tools.tools],
    });
    const ledger = await finish(runtime, handle);
    expect(receiptSummary(ledger)).toEqual([{ toolName: "fixture__hang", status: "timed_out", reason: "timed_out" }]);
    expect(ledger.result.terminalState).toBe("completed");
    const call = readFixtureLog(log).find((entry) => entry.event === "call")!;
    const cancelled = await waitFor(
      () => readFixtureLog(log).find((entry) => entry.event === "cancelled"),
      "the server to see the cancellation",
    );
    expect(cancelled).toMatchObject({ tool: "hang", requestId: call.requestId });
  });

  it("cancelling the run cancels the MCP call on the server", async () => {
    const { tools, log } = await toolset();
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s",
      input: "Wait a long time.",
      provider: scriptedProvider([callStep("c1", "fixture__slow", { ms: 60_000 }), textStep("never")]),
      tools: [...tools.tools],
    });
    await waitFor(() => readFixtureLog(log).some((entry) => entry.event === "call"), "the call to reach the server");
    handle.cancel();
    const ledger = await finish(runtime, handle);
    expect(ledger.result.terminalState).toBe("cancelled");
    expect(receiptSummary(ledger)).toEqual([
      { toolName: "fixture__slow", status: "cancelled", reason: "cancelled_by_user" },
    ]);
    await waitFor(
      () => readFixtureLog(log).find((entry) => entry.event === "cancelled" && entry.tool === "slow"),
      "the server to see the cancellation",
    );
  });

  it("the runtime's timed_out receipt of an MCP call carries the server, tool and request id it went out with", async () => {
    const { tools, log } = await toolset({ timeoutMs: 300 });
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s",
      input: "Wait for it.",
      provider: scriptedProvider([callStep("c1", "fixture__hang"), textStep("The server did not answer.")]),
      tools: [...tools.tools],
    });
    const ledger = await finish(runtime, handle);
    const call = readFixtureLog(log).find((entry) => entry.event === "call")!;
    expect(ledger.receipts[0]).toMatchObject({ status: "timed_out" });
    expect(ledger.receipts[0]!.evidence).toMatchObject({
      timeout_ms: 300,
      mcp_server: "fixture",
      mcp_tool: "hang",
      mcp_request_id: call.requestId,
      mcp_arguments_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it("the runtime's cancelled receipt of an MCP call carries the server, tool and request id it went out with", async () => {
    const { tools, log } = await toolset();
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s",
      input: "Wait a long time.",
      provider: scriptedProvider([callStep("c1", "fixture__slow", { ms: 60_000 }), textStep("never")]),
      tools: [...tools.tools],
    });
    const call = await waitFor(
      () => readFixtureLog(log).find((entry) => entry.event === "call"),
      "the call to reach the server",
    );
    handle.cancel();
    const ledger = await finish(runtime, handle);
    expect(ledger.receipts[0]).toMatchObject({ status: "cancelled", reason: "cancelled_by_user" });
    expect(ledger.receipts[0]!.evidence).toMatchObject({
      started: true,
      mcp_server: "fixture",
      mcp_tool: "slow",
      mcp_request_id: call.requestId,
    });
  });

  it("records a server that dies mid-call as an error receipt, and the run goes on to its answer", async () => {
    const { tools } = await toolset();
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s",
      input: "Crash it, then echo.",
      provider: scriptedProvider([
        callStep("c1", "fixture__crash"),
        callStep("c2", "fixture__echo", { text: "still there?" }),
        textStep("The server crashed; nothing more could be done."),
      ]),
      tools: [...tools.tools],
    });
    const ledger = await finish(runtime, handle);
    expect(receiptSummary(ledger)).toEqual([
      { toolName: "fixture__crash", status: "error", reason: "tool_error" },
      { toolName: "fixture__echo", status: "error", reason: "tool_error" },
    ]);
    expect(ledger.receipts[1]!.evidence).toMatchObject({ mcp_request_id: null });
    expect(ledger.result.terminalState).toBe("completed");
    expect(ledger.result.finalText).toContain("The server crashed");
    expect(ledgerViolations(ledger)).toEqual([]);
  });
});
