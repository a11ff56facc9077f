/**
 * W10 on LangGraph.js: a StateGraph over MessagesAnnotation with an `agent` node (the scripted model,
 * deriving its step from the ToolMessages in the state it is handed) and the prebuilt ToolNode,
 * routed by the prebuilt toolsCondition; checkpointed by MemorySaver or by SqliteSaver on a file
 * (WAL, synchronous NORMAL, as agentloop's ledger). One thread per run.
 * Plain JavaScript so the root tsconfig never needs these packages; they live in bench/peers/.
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { z } from "zod";

/**
 * @param {{ reply: Function, lookup: Function, input: string, finalText: string, steps: number }} w10  W10, from bench/workloads/w10.ts
 * @param {{ checkpointer: "memory" | "sqlite", filename?: string }} options
 */
export function makeLangGraphW10(w10, options) {
  const lookup = tool(async ({ i }) => JSON.stringify(w10.lookup(i)), {
    name: "lookup",
    description: "Looks an item up by its index.",
    schema: z.object({ i: z.number().int() }),
  });
  const agent = async (state) => {
    const toolResults = state.messages.filter((message) => message.getType() === "tool").length;
    const reply = w10.reply(toolResults);
    const message =
      reply.kind === "call"
        ? new AIMessage({
            content: "",
            tool_calls: [{ id: reply.callId, name: "lookup", args: reply.args, type: "tool_call" }],
          })
        : new AIMessage(reply.text);
    return { messages: [message] };
  };
  let saver;
  if (options.checkpointer === "sqlite") {
    saver = SqliteSaver.fromConnString(options.filename);
    saver.db.pragma("journal_mode = WAL");
    saver.db.pragma("synchronous = NORMAL");
  } else {
    saver = new MemorySaver();
  }
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("agent", agent)
    .addNode("tools", new ToolNode([lookup]))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", toolsCondition, ["tools", END])
    .addEdge("tools", "agent")
    .compile({ checkpointer: saver });
  return {
    runOnce: async (label) => {
      const state = await graph.invoke(
        { messages: [new HumanMessage(w10.input)] },
        { configurable: { thread_id: label }, recursionLimit: 4 * w10.steps },
      );
      const last = state.messages[state.messages.length - 1];
      const toolMessages = state.messages.filter((message) => message.getType() === "tool").length;
      if (toolMessages !== w10.steps - 1 || last?.content !== w10.finalText) {
        throw new Error(
          `LangGraph W10 run ended with ${toolMessages} tool results and ${JSON.stringify(last?.content)}`,
        );
      }
    },
    dispose: async () => {
      if (options.checkpointer === "sqlite") saver.db.close();
    },
  };
}
