import { afterEach, describe, expect, it } from "vitest";
import type { FinalMessage } from "../../../src/domain/delivery.js";
import { ChannelSendError } from "../../../src/host/channels/Channel.js";
import { webhookChannel } from "../../../src/host/channels/webhook.js";
import { startWebhookReceiver, type WebhookReceiver } from "./webhookServer.js";

let receivers: WebhookReceiver[] = [];
afterEach(async () => {
  for (const receiver of receivers) await receiver.close();
  receivers = [];
});

async function receiver(answer: (attempt: number) => number, path?: string) {
  const started = await startWebhookReceiver(answer, path ? { path } : {});
  receivers.push(started);
  return started;
}

const message: FinalMessage = {
  kind: "final",
  runId: "run-1",
  channelId: "hook",
  idempotencyKey: "run-1:final",
  text: "Done.",
  locale: "en",
  terminalState: "completed",
  reason: "answered",
  traceId: "trace-1",
};

describe("webhook channel", () => {
  it("posts the message JSON with its idempotency key and returns the receiver's message id", async () => {
    const hook = await receiver(() => 200);
    const receipt = await webhookChannel({ id: "hook", url: hook.url }).send(message);
    expect(receipt).toEqual({ messageId: "wh-1" });
    expect(hook.shown).toEqual([{ key: "run-1:final", body: message, messageId: "wh-1" }]);
    expect(hook.headers[0]).toMatchObject({ "content-type": "application/json", "idempotency-key": "run-1:final" });
  });

  it("rejects a non-2xx answer with a one-line error naming the status but not the query string or body", async () => {
    const hook = await receiver(() => 500, "/hook?token=s3cr3t-value");
    const error = await webhookChannel({ id: "hook", url: hook.url })
      .send(message)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ChannelSendError);
    expect((error as ChannelSendError).message).toBe(`webhook hook: HTTP 500 from ${new URL(hook.url).origin}/hook`);
    expect((error as ChannelSendError).status).toBe(500);
    expect((error as ChannelSendError).reason).toBe("refused");
  });

  it("retries inside one send when asked to, with the same idempotency key, until the receiver accepts", async () => {
    const hook = await receiver((attempt) => (attempt < 3 ? 503 : 200));
    const receipt = await webhookChannel({ id: "hook", url: hook.url, retries: 2, retryDelayMs: 1 }).send(message);
    expect(receipt).toEqual({ messageId: "wh-1" });
    expect(hook.attempts.get("run-1:final")).toBe(3);
  });

  it("does not retry a 4xx answer", async () => {
    const hook = await receiver(() => 400);
    await expect(
      webhookChannel({ id: "hook", url: hook.url, retries: 2, retryDelayMs: 1 }).send(message),
    ).rejects.toThrow("HTTP 400");
    expect(hook.attempts.get("run-1:final")).toBe(1);
  });

  it("rejects with a one-line error when nothing listens", async () => {
    const hook = await receiver(() => 200);
    await hook.close();
    receivers = [];
    await expect(webhookChannel({ id: "hook", url: hook.url }).send(message)).rejects.toThrow(
      /^webhook hook: request to http:\/\/127\.0\.0\.1:\d+\/hook failed \(\w+\)$/,
    );
  });
});
