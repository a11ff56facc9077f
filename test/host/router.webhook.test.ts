import { Effect } from "effect";
import { afterEach, describe, expect, it } from "vitest";
import { webhookChannel } from "../../src/host/channels/webhook.js";
import { type ChannelRouter, makeRouter } from "../../src/host/router.js";
import * as DeliveryLog from "../../src/persistence/DeliveryLog.js";
import type { AgentRuntime } from "../../src/runtime/AgentRuntime.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { startWebhookReceiver, type WebhookReceiver } from "../host/channels/webhookServer.js";
import { readLedger, textStep, useRuntimeHarness } from "../support/runtimeHarness.js";

/** The router delivering to a webhook on a loopback node:http server, on a real runtime. */

const harness = useRuntimeHarness("agentloop-router-webhook-");
let receivers: WebhookReceiver[] = [];
let routers: ChannelRouter[] = [];
afterEach(async () => {
  for (const router of routers) await router.dispose();
  for (const receiver of receivers) await receiver.close();
  routers = [];
  receivers = [];
});

async function setUp(answer: (attempt: number) => number, path?: string) {
  const runtime = await harness.makeRuntime();
  const receiver = await startWebhookReceiver(answer, path ? { path } : {});
  receivers.push(receiver);
  const router = makeRouter({
    runtime,
    channels: [{ channel: webhookChannel({ id: "hook", url: receiver.url }), maxAttempts: 3, retryDelayMs: 1 }],
  });
  routers.push(router);
  const handle = runtime.startRun({ sessionId: "s1", input: "Hi", provider: scriptedProvider([textStep("Hello.")]) });
  const [output] = await router.attach(handle).done;
  return { runtime, receiver, handle, output: output! };
}

const deliveries = (runtime: AgentRuntime, runId: string) =>
  runtime.run(Effect.flatMap(DeliveryLog.make(), (log) => log.listRunDeliveries(runId)));

describe("router → webhook", () => {
  it("delivers the final exactly once to a webhook that fails twice, and the log shows the failed attempts", async () => {
    const { runtime, receiver, handle, output } = await setUp((attempt) => (attempt <= 2 ? 500 : 200));
    const key = `${handle.runId}:final`;

    expect(receiver.attempts.get(key)).toBe(3);
    expect(receiver.shown.map((entry) => [entry.key, entry.body.text])).toEqual([[key, "Hello."]]);
    expect(output).toMatchObject({ final: "delivered", failed: [] });
    expect(output.delivered[0]).toMatchObject({ messageId: "wh-1", attempts: 3 });
    expect(
      (await deliveries(runtime, handle.runId)).map((row) => [row.status, row.attempt, row.messageId, row.error]),
    ).toEqual([
      ["failed", 1, null, `webhook hook: HTTP 500 from ${new URL(receiver.url).origin}/hook`],
      ["failed", 2, null, `webhook hook: HTTP 500 from ${new URL(receiver.url).origin}/hook`],
      ["sent", 3, "wh-1", null],
    ]);
  });

  it("leaves the run's terminal state unchanged and records failed when the webhook always fails", async () => {
    const { runtime, handle, output } = await setUp(() => 500);
    const result = await handle.result;
    const ledger = await readLedger(runtime, handle.runId);

    expect(output.final).toBe("undeliverable");
    expect(result.terminalState).toBe("completed");
    expect(ledger.run?.terminalState).toBe("completed");
    expect(ledger.events.at(-1)?.payload).toMatchObject({ terminalState: "completed" });
    expect((await deliveries(runtime, handle.runId)).map((row) => [row.kind, row.status, row.attempt])).toEqual([
      ["final", "failed", 1],
      ["final", "failed", 2],
      ["final", "failed", 3],
    ]);
  });

  it("logs a failed attempt without the webhook's secret query string or response body", async () => {
    const { runtime, handle } = await setUp(() => 500, "/hook?token=s3cr3t-value");
    const errors = (await deliveries(runtime, handle.runId)).map((row) => row.error ?? "");
    expect(errors).toHaveLength(3);
    expect(errors.filter((error) => /s3cr3t|stack trace|\n/.test(error))).toEqual([]);
  });
});
