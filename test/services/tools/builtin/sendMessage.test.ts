import { describe, expect, it } from "@effect/vitest";
import { Effect } from "effect";
import type { CompletionContractInput, JsonValue } from "../../../../src/domain/index.js";
import { scriptedProvider } from "../../../../src/services/providers/scripted.js";
import { type MessageSender, sendMessageTool } from "../../../../src/services/tools/builtin/sendMessage.js";
import { runTool } from "../../../support/executeTool.js";
import { callStep, finish, receiptSummary, textStep, useRuntimeHarness } from "../../../support/runtimeHarness.js";

/**
 * Issue H: `send_message` is evidence only when the channel returns its own message id; that id is
 * what satisfies a DELIVER contract.
 */

const harness = useRuntimeHarness("agentloop-send-");

interface Sent {
  readonly text: string;
  readonly idempotencyKey: string;
}

/** An in-memory channel that accepts every message and returns its own id. */
function outbox(channelId = "outbox"): MessageSender & { readonly sent: Sent[] } {
  const sent: Sent[] = [];
  return {
    channelId,
    sent,
    send: async (message) => {
      sent.push(message);
      return { messageId: `${channelId}-msg-${sent.length}` };
    },
  };
}

/** A channel that accepts messages but returns no id (`""` or nothing at all). */
function idless(messageId: string | undefined, channelId = "outbox"): MessageSender & { readonly sent: Sent[] } {
  const sent: Sent[] = [];
  return {
    channelId,
    sent,
    send: async (message) => {
      sent.push(message);
      return { messageId } as { messageId: string };
    },
  };
}

const throwing = (channelId = "outbox"): MessageSender => ({
  channelId,
  send: async () => {
    throw new Error("channel is down");
  },
});

const send = (senders: ReadonlyArray<MessageSender>, args: Record<string, JsonValue>) =>
  Effect.suspend(() => runTool(sendMessageTool(senders), args));

const DELIVER: CompletionContractInput = { evidenceMode: "deliver" };

describe("send_message (direct)", () => {
  it.effect("returns the channel's own message id as evidence.message_id", () =>
    Effect.gen(function* () {
      const channel = outbox();
      const result = yield* send([channel], { channel: "outbox", text: "Deploy finished." });
      expect(result.status).toBe("ok");
      expect(result.evidence).toEqual({ message_id: "outbox-msg-1", channel: "outbox" });
      expect(channel.sent.map((message) => message.text)).toEqual(["Deploy finished."]);
    }),
  );

  it.effect("passes the run and call ids as the idempotency key", () =>
    Effect.gen(function* () {
      const channel = outbox();
      yield* send([channel], { text: "hello" });
      expect(channel.sent.map((message) => message.idempotencyKey)).toEqual(["run-1:call-1"]);
    }),
  );

  it.effect("delivers through the named channel only", () =>
    Effect.gen(function* () {
      const first = outbox("first");
      const second = outbox("second");
      const result = yield* send([first, second], { channel: "second", text: "hi" });
      expect(result.evidence).toMatchObject({ message_id: "second-msg-1", channel: "second" });
      expect(first.sent).toEqual([]);
    }),
  );

  it.effect("uses the first channel when the call names none", () =>
    Effect.gen(function* () {
      const first = outbox("first");
      const result = yield* send([first, outbox("second")], { text: "hi" });
      expect(result.evidence).toMatchObject({ channel: "first" });
    }),
  );

  it.effect.each([
    { name: "an empty id", messageId: "" },
    { name: "a blank id", messageId: "   " },
    { name: "no id at all", messageId: undefined },
  ])("is an error when the channel returns $name", ({ messageId }) =>
    Effect.gen(function* () {
      const result = yield* send([idless(messageId)], { text: "hi" });
      expect(result.status).toBe("error");
      expect(result.evidence).toBeUndefined();
      expect(result.output).toEqual({ error: "the channel returned no message id" });
    }),
  );

  it.effect("is an error naming an unknown channel, and sends nothing", () =>
    Effect.gen(function* () {
      const channel = outbox();
      const result = yield* send([channel], { channel: "slack", text: "hi" });
      expect(result.status).toBe("error");
      expect(result.output).toEqual({ error: "no channel named slack" });
      expect(channel.sent).toEqual([]);
    }),
  );

  it.effect("is an error when no channel is configured", () =>
    Effect.gen(function* () {
      const result = yield* send([], { text: "hi" });
      expect(result.status).toBe("error");
    }),
  );
});

describe("send_message in a run", () => {
  const sendStep = () => callStep("c1", "send_message", { channel: "outbox", text: "Deploy finished." });

  it("records a throwing channel as an error/tool_threw receipt", async () => {
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Tell #ops the deploy finished.",
      provider: scriptedProvider([sendStep(), textStep("The channel is down; nothing was sent.")]),
      tools: [sendMessageTool([throwing()])],
    });
    const ledger = await finish(runtime, handle);
    expect(receiptSummary(ledger)).toEqual([{ toolName: "send_message", status: "error", reason: "tool_threw" }]);
  });

  it("completes a deliver contract with the channel's message id on the receipt", async () => {
    const runtime = await harness.makeRuntime();
    const channel = outbox();
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Tell #ops the deploy finished.",
      contract: DELIVER,
      provider: scriptedProvider([sendStep(), textStep("Sent to #ops.")]),
      tools: [sendMessageTool([channel])],
    });
    const { result, receipts } = await finish(runtime, handle);
    expect(result.terminalState).toBe("completed");
    expect(result.terminalReason).toBe("receipts_satisfied");
    expect(receipts.map((receipt) => receipt.evidence.message_id)).toEqual(["outbox-msg-1"]);
  });

  it("does not complete a deliver contract when the channel returns no id", async () => {
    const runtime = await harness.makeRuntime();
    const channel = idless("");
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Tell #ops the deploy finished.",
      contract: DELIVER,
      provider: scriptedProvider([sendStep(), textStep("Sent to #ops."), textStep("Sent, I believe.")]),
      tools: [sendMessageTool([channel])],
    });
    const ledger = await finish(runtime, handle);
    expect(channel.sent).toHaveLength(1);
    expect(ledger.result.terminalState).not.toBe("completed");
    expect(ledger.result.terminalState).toBe("unverified");
    expect(receiptSummary(ledger)).toEqual([{ toolName: "send_message", status: "error", reason: "tool_error" }]);
  });
});
