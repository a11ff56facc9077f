import { describe, expect, it } from "vitest";
import { defineProvider, type ProviderReply } from "../../../src/services/providers/defineProvider.js";
import { ProviderError, type ProviderRequest } from "../../../src/services/providers/Provider.js";
import { finish, lookupTool, useRuntimeHarness } from "../../support/runtimeHarness.js";

const harness = useRuntimeHarness("agentloop-define-provider-");
const FAST_RETRY = { retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 } };

/** Runs one run with `complete` as its provider; returns the result and every request it was sent. */
async function runWith(
  complete: (request: ProviderRequest, context: { signal: AbortSignal }) => Promise<ProviderReply>,
  options: { timeoutMs?: number } = {},
) {
  const requests: ProviderRequest[] = [];
  const provider = defineProvider({
    name: "promised",
    model: "m-1",
    ...options,
    complete: (request, context) => {
      requests.push(request);
      return complete(request, context);
    },
  });
  const runtime = await harness.makeRuntime(FAST_RETRY);
  const handle = runtime.startRun({ sessionId: "s", input: "look item 1 up", tools: [lookupTool()], provider });
  return { handle, requests, ...(await finish(runtime, handle)) };
}

describe("defineProvider", () => {
  it("drives a run with tool calls and an answer from an async function", async () => {
    const { result, requests, receipts } = await runWith(async (request) =>
      request.step === 1
        ? { toolCalls: [{ id: "c1", name: "lookup", arguments: { i: 1 } }], finishReason: "tool_calls" }
        : { text: "Item 1 is 'item'.", finishReason: "stop" },
    );
    expect(result).toMatchObject({ terminalState: "completed", finalText: "Item 1 is 'item'." });
    expect(receipts.map((receipt) => receipt.status)).toEqual(["ok"]);
    expect(requests[0]?.tools.map((tool) => tool.name)).toEqual(["lookup"]);
    expect(requests[1]?.messages.some((message) => message.role === "tool")).toBe(true);
  });

  it("retries a rejection that carries a retryable HTTP status", async () => {
    let attempts = 0;
    const { result } = await runWith(async () => {
      attempts += 1;
      if (attempts === 1) throw Object.assign(new Error("slow down"), { status: 429 });
      return { text: "Done.", finishReason: "stop" };
    });
    expect(attempts).toBe(2);
    expect(result.terminalState).toBe("completed");
  });

  it("ends the run provider_error without another attempt on a plain error", async () => {
    let attempts = 0;
    const { result } = await runWith(async () => {
      attempts += 1;
      throw new Error("my code broke");
    });
    expect(attempts).toBe(1);
    expect(result).toMatchObject({ terminalState: "failed", terminalReason: "provider_error" });
  });

  it("keeps the reason of a ProviderError the function throws (a server_error is retried)", async () => {
    let attempts = 0;
    const { result } = await runWith(async () => {
      attempts += 1;
      if (attempts === 1) throw new ProviderError({ reason: "server_error", message: "overloaded" });
      return { text: "Done.", finishReason: "stop" };
    });
    expect(attempts).toBe(2);
    expect(result.terminalState).toBe("completed");
  });

  it("ends the run as a protocol error when the reply has the wrong shape", async () => {
    const { result } = await runWith(async () => ({ text: 42 }) as unknown as ProviderReply);
    expect(result).toMatchObject({ terminalState: "failed", terminalReason: "provider_tool_protocol_invalid" });
  });

  it("aborts the signal it was given when the run is cancelled mid-step", async () => {
    let aborted = false;
    const runtime = await harness.makeRuntime(FAST_RETRY);
    let started!: () => void;
    const asked = new Promise<void>((resolve) => {
      started = resolve;
    });
    const provider = defineProvider({
      name: "hanging",
      complete: (_request, { signal }) =>
        new Promise<ProviderReply>((_resolve, reject) => {
          started();
          signal.addEventListener("abort", () => {
            aborted = true;
            reject(signal.reason);
          });
        }),
    });
    const handle = runtime.startRun({ sessionId: "s", input: "hi", provider });
    await asked;
    handle.cancel();
    const result = await handle.result;
    expect(result.terminalState).toBe("cancelled");
    expect(aborted).toBe(true);
  });

  it("fails a step that does not answer within timeoutMs as a timeout, retried", async () => {
    let attempts = 0;
    const { result } = await runWith(
      (_request, { signal }) => {
        attempts += 1;
        if (attempts > 1) return Promise.resolve({ text: "Late but here.", finishReason: "stop" });
        return new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
      },
      { timeoutMs: 50 },
    );
    expect(attempts).toBe(2);
    expect(result).toMatchObject({ terminalState: "completed", finalText: "Late but here." });
  });
});
