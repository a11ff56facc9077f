import { describe, expect, it } from "vitest";
import { createActor, fromPromise, toPromise } from "xstate";
import type { ChannelReceipt, DeliveryAttempt, DeliveryPolicy, OutgoingMessage } from "../../src/domain/delivery.js";
import {
  finalMessage,
  type Locale,
  type LoopEvent,
  PROGRESS_MARKER,
  terminalTemplate,
} from "../../src/domain/index.js";
import { type DeliveryInput, deliveryMachine, type SendMessageInput } from "../../src/machines/delivery.machine.js";

/**
 * The delivery machine as a live actor: a scripted `sendMessage` actor stands in for the
 * channel; the run's LoopEvents are sent to it as they would be forwarded by the router.
 */

const RUN = "run-1";
const TRACE = "trace-1";
const ANSWER = "The file was sent.";

const commentary = (text = "Looking it up."): LoopEvent => ({ type: "commentary", runId: RUN, step: 1, text });
const started = (toolName = "lookup"): LoopEvent => ({
  type: "tool_started",
  runId: RUN,
  step: 1,
  callId: "c1",
  toolName,
});
const result = (toolName = "lookup"): LoopEvent => ({
  type: "tool_result",
  runId: RUN,
  step: 1,
  callId: "c1",
  toolName,
  status: "ok",
});
const final = (terminalState: "completed" | "unverified") =>
  ({
    type: "final",
    runId: RUN,
    text: finalMessage({
      terminalState,
      reason: terminalState === "completed" ? "answered" : "claim_without_receipt",
      modelText: ANSWER,
      traceId: TRACE,
    }),
    terminalState,
    ...(terminalState === "completed" ? {} : { answer: ANSWER }),
  }) as LoopEvent;
const done = (terminalState: "completed" | "unverified"): LoopEvent => ({
  type: "done",
  runId: RUN,
  traceId: TRACE,
  terminalState,
  reason: terminalState === "completed" ? "answered" : "claim_without_receipt",
});

interface Script {
  /** Whether this attempt at this message fails (with the message of the error). */
  readonly fail?: (message: OutgoingMessage, attempt: number) => string | undefined;
  readonly locale?: Locale;
  readonly maxAttempts?: number;
}

function start(policy: DeliveryPolicy, options: Script = {}) {
  const calls: SendMessageInput[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const sendMessage = fromPromise<ChannelReceipt, SendMessageInput>(async ({ input }) => {
    calls.push(input);
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((resolve) => setTimeout(resolve, 1));
    inFlight -= 1;
    const failure = options.fail?.(input.message, input.attempt);
    if (failure !== undefined) throw new Error(failure);
    return { messageId: `m-${calls.length}` };
  });
  const input: DeliveryInput = {
    runId: RUN,
    traceId: TRACE,
    channelId: "chat",
    policy,
    locale: options.locale ?? "en",
    maxAttempts: options.maxAttempts ?? 3,
    retryDelayMs: 1,
  };
  const actor = createActor(deliveryMachine.provide({ actors: { sendMessage } }), { input });
  const records: DeliveryAttempt[] = [];
  actor.on("delivery_attempt", (event) => records.push(event.record));
  actor.start();
  const send = (...events: LoopEvent[]) => {
    for (const event of events) actor.send(event);
  };
  return { actor, calls, records, send, maxInFlight: () => maxInFlight, output: () => toPromise(actor) };
}

describe("delivery actor: policies", () => {
  it("sends nothing before done under final_only, then exactly one final", async () => {
    const delivery = start("final_only");
    delivery.send(commentary(), started(), result());
    expect(delivery.calls).toEqual([]);
    delivery.send(final("completed"));
    expect(delivery.calls).toEqual([]);
    delivery.send(done("completed"));
    const output = await delivery.output();
    expect(delivery.calls.map((call) => call.message.kind)).toEqual(["final"]);
    expect(output.delivered.map((entry) => entry.message.text)).toEqual([ANSWER]);
    expect(output.final).toBe("delivered");
  });

  it("counts the progress it keeps from the channel as suppressed", async () => {
    const delivery = start("final_only");
    delivery.send(commentary(), started(), result(), final("completed"), done("completed"));
    expect((await delivery.output()).suppressed).toBe(3);
  });

  it("sends commentary and tool status as in-progress messages under progress_updates, in order", async () => {
    const delivery = start("progress_updates");
    delivery.send(commentary("Checking the file."), started("send_file"), result("send_file"));
    delivery.send(final("completed"), done("completed"));
    const output = await delivery.output();
    expect(output.delivered.map((entry) => [entry.message.kind, entry.message.text])).toEqual([
      ["progress", "In progress: Checking the file."],
      ["progress", "In progress: calling tool send_file"],
      ["progress", "In progress: tool send_file returned a result"],
      ["final", ANSWER],
    ]);
    expect(output.suppressed).toBe(0);
  });

  it("sends tool status but not commentary under silent_tool_status", async () => {
    const delivery = start("silent_tool_status");
    delivery.send(commentary(), started(), result(), final("completed"), done("completed"));
    const output = await delivery.output();
    expect(output.delivered.map((entry) => entry.message.kind === "progress" && entry.message.source)).toEqual([
      "tool_started",
      "tool_result",
      false,
    ]);
    expect(output.suppressed).toBe(1);
  });

  it("has at most one message in flight at a time", async () => {
    const delivery = start("progress_updates");
    delivery.send(commentary(), started(), result(), final("completed"), done("completed"));
    await delivery.output();
    expect(delivery.maxInFlight()).toBe(1);
  });

  it("gives every message an idempotency key that names its run, kind and position", async () => {
    const delivery = start("progress_updates");
    delivery.send(commentary(), started(), final("completed"), done("completed"));
    await delivery.output();
    expect(delivery.calls.map((call) => call.message.idempotencyKey)).toEqual([
      `${RUN}:progress:1`,
      `${RUN}:progress:2`,
      `${RUN}:final`,
    ]);
  });

  it("ignores everything the run sends after done: a second done sends no second final", async () => {
    const delivery = start("progress_updates");
    delivery.send(final("completed"), done("completed"), commentary(), done("unverified"));
    const output = await delivery.output();
    expect(output.delivered.map((entry) => entry.message.kind)).toEqual(["final"]);
    expect(output.suppressed).toBe(0);
  });
});

describe("delivery actor: honest final text", () => {
  it("renders a run that did not complete with the template of the channel's locale, the answer as context and ref", async () => {
    const delivery = start("final_only", { locale: "zh" });
    delivery.send(final("unverified"), done("unverified"));
    const output = await delivery.output();
    const text = output.delivered[0]!.message.text;
    expect(text.startsWith(terminalTemplate("unverified", "zh"))).toBe(true);
    expect(text).toContain(ANSWER);
    expect(text.endsWith(`ref: ${TRACE}`)).toBe(true);
    expect(text).not.toContain(terminalTemplate("unverified", "en"));
  });

  it("marks progress with the in-progress marker of the channel's locale", async () => {
    const delivery = start("progress_updates", { locale: "zh" });
    delivery.send(started(), final("completed"), done("completed"));
    const output = await delivery.output();
    expect(output.delivered[0]!.message.text.startsWith(PROGRESS_MARKER.zh)).toBe(true);
  });
});

describe("delivery actor: send failures", () => {
  it("retries a failed send and records each failed attempt before the one that succeeds", async () => {
    const delivery = start("final_only", { fail: (_, attempt) => (attempt < 3 ? "HTTP 500" : undefined) });
    delivery.send(final("completed"), done("completed"));
    const output = await delivery.output();
    expect(delivery.records.map((record) => [record.status, record.attempt])).toEqual([
      ["failed", 1],
      ["failed", 2],
      ["sent", 3],
    ]);
    expect(output.delivered[0]).toMatchObject({ attempts: 3, messageId: "m-3" });
    expect(output.final).toBe("delivered");
  });

  it("drops a progress message that fails every attempt and goes on with the next", async () => {
    const delivery = start("progress_updates", {
      maxAttempts: 2,
      fail: (message) => (message.idempotencyKey === `${RUN}:progress:1` ? "HTTP 503" : undefined),
    });
    delivery.send(commentary(), started(), final("completed"), done("completed"));
    const output = await delivery.output();
    expect(output.failed.map((entry) => [entry.message.idempotencyKey, entry.outcome, entry.attempts])).toEqual([
      [`${RUN}:progress:1`, "dropped", 2],
    ]);
    expect(output.delivered.map((entry) => entry.message.idempotencyKey)).toEqual([
      `${RUN}:progress:2`,
      `${RUN}:final`,
    ]);
    expect(delivery.records.filter((record) => record.status === "dropped")).toHaveLength(1);
  });

  it("ends undeliverable when the final fails every attempt, with a failed record per attempt", async () => {
    const delivery = start("final_only", { maxAttempts: 3, fail: () => "HTTP 500" });
    delivery.send(final("unverified"), done("unverified"));
    const output = await delivery.output();
    expect(output.final).toBe("undeliverable");
    expect(output.delivered).toEqual([]);
    expect(output.failed).toHaveLength(1);
    expect(output.failed[0]).toMatchObject({ outcome: "undeliverable", attempts: 3 });
    expect(output.failed[0]!.message).toMatchObject({ kind: "final", terminalState: "unverified" });
    expect(delivery.records.map((record) => [record.status, record.attempt])).toEqual([
      ["failed", 1],
      ["failed", 2],
      ["failed", 3],
    ]);
  });

  it("keeps only the first line of a send error in the records and the output", async () => {
    const delivery = start("final_only", {
      maxAttempts: 1,
      fail: () => "connect ECONNREFUSED 127.0.0.1:9\n    at TCPConnectWrap.afterConnect",
    });
    delivery.send(final("completed"), done("completed"));
    const output = await delivery.output();
    expect(output.failed[0]!.error).toBe("connect ECONNREFUSED 127.0.0.1:9");
    expect(delivery.records[0]!.error).toBe("connect ECONNREFUSED 127.0.0.1:9");
  });
});
