import { afterEach, describe, expect, it } from "vitest";
import { AgentRuntime } from "../../src/runtime/AgentRuntime.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { textStep, useRuntimeHarness } from "../support/runtimeHarness.js";
import { useTempDir } from "../support/tempDir.js";

const harness = useRuntimeHarness("agentloop-inspect-");

/**
 * A host holds a read-only view of a run's actor: it can watch the run and cancel, approve or deny,
 * but it cannot send the run machine's internal events — so it cannot end a contract-bound run
 * `completed` without the receipts the contract requires.
 */

const tmp = useTempDir("agentloop-run-view-");
const runtimes: AgentRuntime[] = [];
afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.dispose();
});

const FORGED_STOP = {
  type: "STOP",
  outcome: { state: "completed", reason: "answered", detail: null },
};

describe("a run handle", () => {
  it("cannot end a deliver run completed while it samples: the handle has no way to send the machine an event", async () => {
    const runtime = await AgentRuntime.make({
      database: tmp.path("ledger.db"),
      provider: scriptedProvider([{ text: "Sent.", delayMs: 400 }]),
    });
    runtimes.push(runtime);
    const handle = runtime.startRun({
      sessionId: "s",
      input: "Send the report",
      contract: { evidenceMode: "deliver", requiredToolNames: ["send_message"] },
    });
    const actor = handle.actor as unknown as Record<string, unknown>;
    expect(actor.send).toBeUndefined();
    expect(actor.system).toBeUndefined();
    // Nor through the snapshot: it carries no references to the run's child actors.
    expect((handle.actor.getSnapshot() as unknown as Record<string, unknown>).children).toBeUndefined();
    expect(() => (actor.send as (event: unknown) => void)(FORGED_STOP)).toThrow(TypeError);
    const result = await handle.result;
    expect(result.terminalState).not.toBe("completed");
    expect(result.receipts).toEqual([]);
    const run = await runtime.ledger.getRun(handle.runId);
    expect(run?.terminalState).toBe(result.terminalState);
  });

  it("still lets the host watch the run and cancel it", async () => {
    const runtime = await AgentRuntime.make({
      database: tmp.path("ledger.db"),
      provider: scriptedProvider([{ text: "Hello.", delayMs: 2_000 }]),
    });
    runtimes.push(runtime);
    const handle = runtime.startRun({ sessionId: "s", input: "hi" });
    const seen: string[] = [];
    handle.actor.on("*", (event) => seen.push(event.type));
    const states: string[] = [];
    handle.actor.subscribe((snapshot) => states.push(snapshot.status));
    expect(handle.actor.getSnapshot().status).toBe("active");
    handle.cancel();
    const result = await handle.result;
    expect(result.terminalState).toBe("cancelled");
    expect(seen).toContain("done");
    expect(handle.actor.getSnapshot().output?.terminalState).toBe("cancelled");
  });
});

describe("inspection of every run", () => {
  it("an observer object (as the Stately inspector gives) receives the run's inspection events", async () => {
    const seen: string[] = [];
    const runtime = await harness.makeRuntime({ inspect: { next: (event) => seen.push(event.type) } });
    const handle = runtime.startRun({ sessionId: "s", input: "Hi", provider: scriptedProvider([textStep("Hello.")]) });
    await handle.result;
    expect(seen).toContain("@xstate.actor");
    expect(seen).toContain("@xstate.event");
    expect(seen).toContain("@xstate.snapshot");
  });
});
