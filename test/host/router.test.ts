import { Effect } from "effect";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "xstate";
import type { CompletionContractInput, LoopEvent } from "../../src/domain/index.js";
import { terminalTemplate } from "../../src/domain/index.js";
import { outboxChannel } from "../../src/host/channels/outbox.js";
import { type ChannelRoute, type ChannelRouter, makeRouter } from "../../src/host/router.js";
import * as DeliveryLog from "../../src/persistence/DeliveryLog.js";
import type { AgentRuntime } from "../../src/runtime/AgentRuntime.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { AnyObjectInput, defineTool } from "../../src/services/tools/Tool.js";
import { callStep, readLedger, textStep, useRuntimeHarness } from "../support/runtimeHarness.js";

/**
 * The router against a real runtime on a temp SQLite file: scripted provider, fixture
 * tools, in-memory outbox channels.
 */

const harness = useRuntimeHarness("agentloop-router-");
let routers: ChannelRouter[] = [];
afterEach(async () => {
  for (const router of routers) await router.dispose();
  routers = [];
});

const OBSERVE_PROBE: CompletionContractInput = { evidenceMode: "observe", requiredToolNames: ["probe"] };

function routerFor(runtime: AgentRuntime, channels: ReadonlyArray<ChannelRoute>) {
  const router = makeRouter({ runtime, channels, retryDelayMs: 1 });
  routers.push(router);
  return router;
}

/** A tool whose executor notes how many messages `outbox` holds while the tool runs. */
function probeTool(outbox: { readonly sent: ReadonlyArray<unknown> }, seen: number[]) {
  return defineTool({
    name: "probe",
    description: "checks something",
    kind: "observe",
    input: AnyObjectInput,
    execute: () =>
      Effect.sync(() => {
        seen.push(outbox.sent.length);
        return { status: "ok" as const, output: { probed: true } };
      }),
  });
}

/** Notes how many messages `outbox` holds when the run emits each LoopEvent of `types`. */
function watch(
  handle: { actor: { on: (type: "*", listener: (event: LoopEvent) => void) => unknown } },
  outbox: { readonly sent: ReadonlyArray<unknown> },
) {
  const seen: Array<[string, number]> = [];
  handle.actor.on("*", (event) => seen.push([event.type, outbox.sent.length]));
  return seen;
}

const deliveries = (runtime: AgentRuntime, runId: string) =>
  runtime.run(Effect.flatMap(DeliveryLog.make(), (log) => log.listRunDeliveries(runId)));

describe("router: final_only", () => {
  it("delivers nothing to a final_only channel before the receipt and the terminal, then exactly one final", async () => {
    const runtime = await harness.makeRuntime();
    const outbox = outboxChannel();
    const router = routerFor(runtime, [{ channel: outbox, policy: "final_only" }]);
    const duringTool: number[] = [];
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Probe it.",
      contract: OBSERVE_PROBE,
      provider: scriptedProvider([callStep("c1", "probe", {}, "Let me probe it."), textStep("Probed: all fine.")]),
      tools: [probeTool(outbox, duringTool)],
    });
    const delivery = router.attach(handle);
    const seen = watch(handle, outbox);
    const [output] = await delivery.done;

    expect(duringTool).toEqual([0]);
    // `final` is emitted only once the terminal row is durable: the outbox is still empty then.
    expect(seen).toEqual([
      ["commentary", 0],
      ["tool_call", 0],
      ["tool_started", 0],
      ["tool_result", 0],
      ["final", 0],
      ["done", expect.any(Number)],
    ]);
    expect(outbox.sent.map((entry) => [entry.message.kind, entry.message.text])).toEqual([
      ["final", "Probed: all fine."],
    ]);
    expect(output).toMatchObject({ final: "delivered", suppressed: 3, failed: [] });
  });

  it("records the sent final in the delivery log with the channel's message id, and nothing in the run ledger", async () => {
    const runtime = await harness.makeRuntime();
    const outbox = outboxChannel({ id: "chat" });
    const router = routerFor(runtime, [{ channel: outbox }]);
    const handle = runtime.startRun({ sessionId: "s1", input: "Hi", provider: scriptedProvider([textStep("Hello.")]) });
    await router.attach(handle).done;

    expect(await deliveries(runtime, handle.runId)).toMatchObject([
      {
        runId: handle.runId,
        channelId: "chat",
        kind: "final",
        status: "sent",
        attempt: 1,
        messageId: "chat-1",
        error: null,
        idempotencyKey: `${handle.runId}:final`,
      },
    ]);
    const ledger = await readLedger(runtime, handle.runId);
    expect(ledger.events.at(-1)?.type).toBe("terminal");
  });
});

describe("router: progress_updates", () => {
  it("shows commentary and tool status as in-progress items, then the answer as the final", async () => {
    const runtime = await harness.makeRuntime();
    const outbox = outboxChannel();
    const router = routerFor(runtime, [{ channel: outbox, policy: "progress_updates" }]);
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Probe it.",
      contract: OBSERVE_PROBE,
      provider: scriptedProvider([callStep("c1", "probe", {}, "Let me probe it."), textStep("Probed: all fine.")]),
      tools: [probeTool(outbox, [])],
    });
    await router.attach(handle).done;

    expect(outbox.sent.map((entry) => [entry.message.kind, entry.message.text])).toEqual([
      ["progress", "In progress: Let me probe it."],
      ["progress", "In progress: calling tool probe"],
      ["progress", "In progress: tool probe returned a result"],
      ["final", "Probed: all fine."],
    ]);
  });

  it("never forwards step commentary that claims an action: a neutral progress line goes out instead", async () => {
    const runtime = await harness.makeRuntime();
    const outbox = outboxChannel();
    const router = routerFor(runtime, [{ channel: outbox, policy: "progress_updates" }]);
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Probe it.",
      contract: OBSERVE_PROBE,
      provider: scriptedProvider([
        callStep("c1", "probe", {}, "All done, I sent the report."),
        textStep("Probed: all fine."),
      ]),
      tools: [probeTool(outbox, [])],
    });
    await router.attach(handle).done;

    const texts = outbox.sent.map((entry) => [entry.message.kind, entry.message.text]);
    expect(texts).toEqual([
      ["progress", "In progress: Working on it…"],
      ["progress", "In progress: calling tool probe"],
      ["progress", "In progress: tool probe returned a result"],
      ["final", "Probed: all fine."],
    ]);
    expect(texts.some(([, text]) => text?.includes("I sent the report"))).toBe(false);
  });

  it("ends an unverified run with the unverified template, the claim only as context, and the trace reference", async () => {
    const runtime = await harness.makeRuntime();
    const outbox = outboxChannel();
    const router = routerFor(runtime, [{ channel: outbox, policy: "progress_updates" }]);
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Probe it.",
      contract: OBSERVE_PROBE,
      provider: scriptedProvider([textStep("Probed: all fine."), textStep("Probed: all fine, really.")]),
      tools: [probeTool(outbox, [])],
    });
    await router.attach(handle).done;
    const result = await handle.result;

    expect(result.terminalState).toBe("unverified");
    const finals = outbox.sent.filter((entry) => entry.message.kind === "final");
    expect(finals).toHaveLength(1);
    const text = finals[0]!.message.text;
    expect(text.startsWith(terminalTemplate("unverified", "en"))).toBe(true);
    expect(text).toContain("Probed: all fine, really.");
    expect(text.endsWith(`ref: ${handle.traceId}`)).toBe(true);
  });

  it("renders the final in each channel's own locale on one run", async () => {
    const runtime = await harness.makeRuntime({ locale: "en" });
    const english = outboxChannel({ id: "en-chat" });
    const chinese = outboxChannel({ id: "zh-chat" });
    const router = routerFor(runtime, [
      { channel: english, locale: "en" },
      { channel: chinese, locale: "zh" },
    ]);
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Probe it.",
      contract: OBSERVE_PROBE,
      provider: scriptedProvider([textStep("Probed."), textStep("Probed again.")]),
      tools: [probeTool(english, [])],
    });
    await router.attach(handle).done;

    expect(english.sent[0]!.message.text.startsWith(terminalTemplate("unverified", "en"))).toBe(true);
    expect(chinese.sent[0]!.message.text.startsWith(terminalTemplate("unverified", "zh"))).toBe(true);
    expect(chinese.sent[0]!.message.text).toContain("Probed again.");
  });
});

describe("router: failures and late attachment", () => {
  it("drops a progress item that fails every attempt and still delivers the final", async () => {
    const runtime = await harness.makeRuntime();
    const outbox = outboxChannel({
      fail: (message) => (message.kind === "progress" && message.index === 1 ? "rate limited" : undefined),
    });
    const router = routerFor(runtime, [{ channel: outbox, policy: "silent_tool_status", maxAttempts: 2 }]);
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Probe it.",
      contract: OBSERVE_PROBE,
      provider: scriptedProvider([callStep("c1", "probe"), textStep("Probed.")]),
      tools: [probeTool(outbox, [])],
    });
    const [output] = await router.attach(handle).done;

    expect(output!.final).toBe("delivered");
    expect((await deliveries(runtime, handle.runId)).map((row) => [row.kind, row.status, row.attempt])).toEqual([
      ["progress", "failed", 1],
      ["progress", "dropped", 2],
      ["progress", "sent", 1],
      ["final", "sent", 1],
    ]);
  });

  it("delivers the final of a run that ended before the router was attached", async () => {
    const runtime = await harness.makeRuntime();
    const outbox = outboxChannel();
    const router = routerFor(runtime, [{ channel: outbox }]);
    const handle = runtime.startRun({ sessionId: "s1", input: "Hi", provider: scriptedProvider([textStep("Hello.")]) });
    await handle.result;
    await router.attach(handle).done;
    expect(outbox.sent.map((entry) => entry.message.text)).toEqual(["Hello."]);
  });

  it("abandons a pending retry on dispose and leaves that channel out of the run's deliveries", async () => {
    const runtime = await harness.makeRuntime();
    const outbox = outboxChannel({ fail: () => "down" });
    const router = routerFor(runtime, [{ channel: outbox, maxAttempts: 3, retryDelayMs: 60_000 }]);
    const handle = runtime.startRun({ sessionId: "s1", input: "Hi", provider: scriptedProvider([textStep("Hello.")]) });
    const delivery = router.attach(handle);
    await waitFor(delivery.actors.get("outbox")!, (snapshot) => snapshot.matches({ active: "retrying" }));
    await router.dispose();

    expect(await delivery.done).toEqual([]);
    expect((await handle.result).terminalState).toBe("completed");
    expect((await deliveries(runtime, handle.runId)).map((row) => row.status)).toEqual(["failed"]);
  });
});
