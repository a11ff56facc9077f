/**
 * `agentloop cancel RUN_ID` from a second process, on a ledger file a runtime in this process
 * writes: a queued run is closed by the command, a driven run is cancelled by its runtime.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { runNode } from "../support/childProcess.js";
import { waitUntilAborted } from "../support/remoteControl.js";
import { callStep, textStep, useRuntimeHarness } from "../support/runtimeHarness.js";

const harness = useRuntimeHarness("agentloop-cancel-cli-");
const BIN = fileURLToPath(new URL("../../bin/agentloop.mjs", import.meta.url));

const agentloop = (...args: string[]) => runNode([BIN, ...args], process.cwd());

describe("agentloop cancel", () => {
  it("closes a run still in the queue as cancelled, by the user who asked", async () => {
    const runtime = await harness.makeRuntime({
      agents: { greeter: { provider: scriptedProvider([textStep("Hello.")]) } },
    });
    const { runId } = await runtime.enqueueRun({ agent: "greeter", sessionId: "s", input: "Hi" });
    const { code, stdout } = await agentloop("cancel", runId, "--db", harness.dbFile(), "--by", "ops");
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(`cancelled ${runId} (no runtime was driving it)`);
    const run = await runtime.ledger.getRun(runId);
    expect([run?.terminalState, run?.failureCode, run?.failureDetail]).toEqual([
      "cancelled",
      "cancelled_by_user",
      "cancelled by ops before a worker started it",
    ]);
  });

  it("asks the runtime driving a run to cancel it, which it does", async () => {
    const runtime = await harness.makeRuntime({ cancelPollMs: 20 });
    const handle = runtime.startRun({
      sessionId: "s",
      input: "Wait.",
      provider: scriptedProvider([callStep("c1", "wait_for_operator", {}), textStep("Stopped.")]),
      tools: [waitUntilAborted],
    });
    for await (const event of handle.events) if (event.type === "tool_started") break;
    const { code, stdout } = await agentloop("cancel", handle.runId, "--db", harness.dbFile(), "--json");
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ runId: handle.runId, state: "requested" });
    expect((await handle.result).terminalState).toBe("cancelled");
  });

  it("refuses a run that is not in the ledger, in one line", async () => {
    const runtime = await harness.makeRuntime();
    await runtime.ledger.listRuns();
    const { code, stderr } = await agentloop("cancel", "nope", "--db", harness.dbFile());
    expect(code).toBe(1);
    expect(stderr.trim()).toBe("agentloop: cannot cancel nope: no such run in the ledger");
  });

  it("refuses a --by with a control character before opening the ledger", async () => {
    const { code, stderr } = await agentloop("cancel", "r", "--db", harness.path("absent.db"), "--by", "a\u0007b");
    expect(code).toBe(2);
    expect(stderr).toContain("--by");
  });
});
