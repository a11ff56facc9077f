import { describe, expect, it } from "@effect/vitest";
import { Effect } from "effect";
import type { FinalMessage } from "../../../src/domain/delivery.js";
import { channelMessageSender } from "../../../src/host/channels/Channel.js";
import { outboxChannel } from "../../../src/host/channels/outbox.js";
import { sendMessageTool } from "../../../src/services/tools/builtin/sendMessage.js";
import { runTool } from "../../support/executeTool.js";

const final: FinalMessage = {
  kind: "final",
  runId: "run-1",
  channelId: "outbox",
  idempotencyKey: "run-1:final",
  text: "Done.",
  locale: "en",
  terminalState: "completed",
  reason: "answered",
  traceId: "t",
};

describe("outbox channel", () => {
  it("keeps accepted messages in order with their message ids", async () => {
    const outbox = outboxChannel();
    expect(await outbox.send(final)).toEqual({ messageId: "outbox-1" });
    expect(outbox.sent).toEqual([{ message: final, messageId: "outbox-1" }]);
  });

  it("refuses the attempts its script says to refuse and counts attempts per idempotency key", async () => {
    const outbox = outboxChannel({ fail: (_, attempt) => (attempt === 1 ? "busy" : undefined) });
    await expect(outbox.send(final)).rejects.toThrow("outbox: busy");
    await outbox.send(final);
    expect(outbox.attempts).toEqual([
      { idempotencyKey: "run-1:final", attempt: 1, ok: false },
      { idempotencyKey: "run-1:final", attempt: 2, ok: true },
    ]);
    expect(outbox.sent).toHaveLength(1);
  });
});

describe("channelMessageSender", () => {
  it.effect("lets the send_message tool deliver through a channel, with the channel's message id as evidence", () =>
    Effect.gen(function* () {
      const outbox = outboxChannel({ id: "chat" });
      const tool = sendMessageTool([channelMessageSender(outbox)]);
      const result = yield* runTool(tool, { text: "Your report is ready." }, { runId: "run-7", callId: "call_1" });
      expect(result).toMatchObject({ status: "ok", evidence: { message_id: "chat-1" } });
      expect(outbox.sent[0]!.message).toEqual({
        kind: "message",
        runId: "run-7",
        channelId: "chat",
        idempotencyKey: "run-7:call_1",
        text: "Your report is ready.",
        locale: "en",
        callId: "call_1",
      });
    }),
  );
});
