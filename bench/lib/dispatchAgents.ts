/**
 * The agents of `dispatch.latency`, registered alike by the process that enqueues and the worker
 * process that drives: the model's first answer depends on the run's input — `pickup` answers at
 * once, `cancel` calls a tool that waits until the run is cancelled, `approve` calls a deliver
 * tool that waits for approval. `mark(what, runId)` is called at each instant the bench measures.
 */
import { Effect } from "effect";
import { z } from "zod";
import { ProviderCapabilities } from "../../src/domain/index.js";
import type { AgentDefinition } from "../../src/runtime/runtimeConfig.js";
import type { Provider } from "../../src/services/providers/Provider.js";
import { scriptedResponse } from "../../src/services/providers/scripted.js";
import { defineTool } from "../../src/services/tools/Tool.js";
import { W10_CONTRACT_INPUT, w10Reply } from "../workloads/w10.js";

export const THROUGHPUT_MODEL_LATENCY_MS = 50;

export type Mark = (what: "sampled" | "waiting" | "started" | "executed", runId: string) => void;

export function dispatchAgents(mark: Mark): Record<string, AgentDefinition> {
  const provider: Provider = {
    id: "dispatch",
    model: "dispatch-scripted",
    apiFamily: "scripted",
    capabilities: ProviderCapabilities.parse({}),
    sample: (request) =>
      Effect.sync(() => {
        const input = String(request.messages.find((message) => message.role === "user")?.content ?? "");
        const answered = request.messages.some((message) => message.role === "tool");
        if (!answered) mark("sampled", request.runId);
        if (answered || input === "pickup") return scriptedResponse({ text: "Done." });
        return input === "cancel"
          ? scriptedResponse({ toolCalls: [{ id: "wait_1", name: "wait", arguments: {} }] })
          : scriptedResponse({ toolCalls: [{ id: "send_1", name: "send", arguments: {} }] });
      }),
  };
  const wait = defineTool({
    name: "wait",
    description: "Waits until the run is cancelled.",
    kind: "observe",
    input: z.object({}),
    execute: (_args, context) =>
      new Promise((_resolve, reject) => {
        mark("waiting", context.runId);
        context.signal.addEventListener("abort", () => reject(new Error("cancelled")), { once: true });
      }),
  });
  const send = defineTool({
    name: "send",
    description: "Sends once approved.",
    kind: "deliver",
    requiresApproval: true,
    input: z.object({}),
    execute: async (_args, context) => {
      mark("started", context.runId);
      return { status: "ok", output: { sent: true }, evidence: { message_id: `m-${context.runId}` } };
    },
  });
  // W10 with a model that takes 50 ms a step: nine lookups, then the answer (dispatch.throughput).
  const w10Provider: Provider = {
    id: "dispatch-w10",
    model: "w10-scripted",
    apiFamily: "scripted",
    capabilities: ProviderCapabilities.parse({}),
    sample: (request) => {
      const reply = w10Reply(request.messages.filter((message) => message.role === "tool").length);
      return Effect.zipRight(
        Effect.sleep(THROUGHPUT_MODEL_LATENCY_MS),
        Effect.sync(() =>
          reply.kind === "call"
            ? scriptedResponse({ toolCalls: [{ id: reply.callId, name: "lookup", arguments: { i: reply.args.i } }] })
            : scriptedResponse({ text: reply.text }),
        ),
      );
    },
  };
  const lookupCounted = defineTool({
    name: "lookup",
    description: "Looks an item up by its index.",
    kind: "observe",
    input: z.object({ i: z.number().int() }),
    execute: async ({ i }, context) => {
      mark("executed", `${context.runId}#${i}`);
      return { status: "ok", output: { i, value: `item-${i}`, ok: true } };
    },
  });
  return {
    bench: { provider, tools: [wait, send] },
    w10: { provider: w10Provider, tools: [lookupCounted], contract: W10_CONTRACT_INPUT },
  };
}
