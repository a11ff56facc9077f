/**
 * Workload W10, fixed: one run = 10 sequential model steps. Steps 1–9 call `lookup({ i: step })`,
 * the tool answers `{ i, value: "item-<i>", ok: true }` at once, step 10 answers in text. The
 * scripted model derives its step from the history it is handed (the number of tool results), so a
 * loop that loses history never finishes. Contract: `observe` with `requiredToolNames: ["lookup"]`.
 */
import { Effect } from "effect";
import { z } from "zod";
import {
  CompletionContract,
  type CompletionContractInput,
  type ContextMessage,
  type ModelResponse,
  ProviderCapabilities,
} from "../../src/domain/index.js";
import type { Provider } from "../../src/services/providers/Provider.js";
import { defineTool } from "../../src/services/tools/Tool.js";

export const W10_STEPS = 10;
export const W10_TOOL_STEPS = 9;
/** Ledger rows of one W10 run: user_input, 9 × (tool_call, tool_result), assistant_output, terminal. */
export const W10_ROWS_PER_RUN = 21;
export const W10_INPUT = "Look up items 1 to 9, then summarise.";
export const W10_FINAL_TEXT = "Looked up items 1 to 9.";

export const W10_CONTRACT_INPUT: CompletionContractInput = { evidenceMode: "observe", requiredToolNames: ["lookup"] };
export const W10_CONTRACT: CompletionContract = CompletionContract.parse(W10_CONTRACT_INPUT);

export type W10Reply =
  | { readonly kind: "call"; readonly step: number; readonly callId: string; readonly args: { readonly i: number } }
  | { readonly kind: "final"; readonly step: number; readonly text: string };

/** The scripted model: what it answers after `toolResults` tool results. Shared by every implementation. */
export function w10Reply(toolResults: number): W10Reply {
  const step = toolResults + 1;
  if (step <= W10_TOOL_STEPS) return { kind: "call", step, callId: `call_${step}`, args: { i: step } };
  return { kind: "final", step, text: W10_FINAL_TEXT };
}

export interface LookupOutput {
  readonly i: number;
  readonly value: string;
  readonly ok: true;
}

/** The tool's behaviour. */
export const lookup = (i: number): LookupOutput => ({ i, value: `item-${i}`, ok: true });

const countToolMessages = (messages: ReadonlyArray<ContextMessage>): number => {
  let count = 0;
  for (const message of messages) if (message.role === "tool") count += 1;
  return count;
};

function modelResponse(reply: W10Reply): ModelResponse {
  return reply.kind === "call"
    ? {
        text: "",
        toolCalls: [{ id: reply.callId, name: "lookup", arguments: { i: reply.args.i } }],
        malformedToolCalls: [],
        anomalies: [],
        streamed: false,
        finishReason: "tool_calls",
      }
    : { text: reply.text, toolCalls: [], malformedToolCalls: [], anomalies: [], streamed: false, finishReason: "stop" };
}

/** W10's model as an agentloop Provider; `latencyMs` > 0 sleeps that long per step (scale.concurrent). */
export function w10Provider(latencyMs = 0): Provider {
  const capabilities = ProviderCapabilities.parse({});
  return {
    id: "w10",
    model: "w10-scripted",
    apiFamily: "scripted",
    capabilities,
    sample: (request) => {
      const response = Effect.sync(() => modelResponse(w10Reply(countToolMessages(request.messages))));
      return latencyMs > 0 ? Effect.zipRight(Effect.sleep(latencyMs), response) : response;
    },
  };
}

/** W10's tool as an agentloop tool definition. */
export const w10LookupTool = defineTool({
  name: "lookup",
  description: "Looks an item up by its index.",
  kind: "observe",
  input: z.object({ i: z.number().int() }),
  execute: ({ i }) => Effect.succeed({ status: "ok" as const, output: { ...lookup(i) } }),
});
