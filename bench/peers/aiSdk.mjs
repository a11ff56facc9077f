/**
 * W10 on the Vercel AI SDK: `generateText` with `stopWhen: stepCountIs(10)`, the scripted model as a
 * `MockLanguageModelV3` (from `ai/test`) deriving its step from the tool messages in the prompt it
 * is handed, and `lookup` as an executing tool. In-memory: the AI SDK persists nothing.
 * Plain JavaScript so the root tsconfig never needs these packages; they live in bench/peers/.
 */
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/** @param {{ reply: Function, lookup: Function, input: string, finalText: string, steps: number }} w10  W10, from bench/workloads/w10.ts */
export function makeAiSdkW10(w10) {
  const model = new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const toolResults = prompt.filter((message) => message.role === "tool").length;
      const reply = w10.reply(toolResults);
      if (reply.kind === "call") {
        return {
          content: [
            { type: "tool-call", toolCallId: reply.callId, toolName: "lookup", input: JSON.stringify(reply.args) },
          ],
          finishReason: { unified: "tool-calls", raw: "tool_calls" },
          usage,
          warnings: [],
        };
      }
      return {
        content: [{ type: "text", text: reply.text }],
        finishReason: { unified: "stop", raw: "stop" },
        usage,
        warnings: [],
      };
    },
  });
  const tools = {
    lookup: tool({
      description: "Looks an item up by its index.",
      inputSchema: z.object({ i: z.number().int() }),
      execute: async ({ i }) => w10.lookup(i),
    }),
  };
  return {
    runOnce: async () => {
      const result = await generateText({ model, tools, prompt: w10.input, stopWhen: stepCountIs(w10.steps) });
      // The mock records every call it was given: forget them, or memory grows with the runs.
      model.doGenerateCalls.length = 0;
      if (result.steps.length !== w10.steps || result.text !== w10.finalText) {
        throw new Error(`AI SDK W10 run ended after ${result.steps.length} steps with ${JSON.stringify(result.text)}`);
      }
    },
    dispose: async () => {},
  };
}
