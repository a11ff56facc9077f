import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
  ChatCompletionToolChoiceOption,
} from "openai/resources/chat/completions";
import type { ContextMessage, ToolChoice, ToolDescriptor } from "../../../domain/index.js";
import { toolParameters } from "../transport.js";
import { argumentsText, pairToolMessages } from "./pairing.js";

/**
 * ContextMessage[] → Chat Completions `messages`: an assistant turn's `tool_calls` (arguments as
 * a JSON string; a raw non-JSON argument string as it came) is followed by one `tool` message per
 * call id, in call order.
 */
export function toChatMessages(messages: ReadonlyArray<ContextMessage>): ChatCompletionMessageParam[] {
  const wire: ChatCompletionMessageParam[] = [];
  for (const message of pairToolMessages(messages)) {
    if (message.role === "system" || message.role === "user") {
      wire.push({ role: message.role, content: message.content });
      continue;
    }
    if (message.toolCalls.length === 0) {
      // An empty assistant turn carries nothing; the API refuses one without content.
      if (message.content.length > 0) wire.push({ role: "assistant", content: message.content });
      continue;
    }
    wire.push({
      role: "assistant",
      content: message.content.length > 0 ? message.content : null,
      tool_calls: message.toolCalls.map((call) => ({
        id: call.id,
        type: "function" as const,
        function: { name: call.name, arguments: argumentsText(call) },
      })),
    });
    for (const result of message.results) {
      wire.push({ role: "tool", tool_call_id: result.callId, content: result.content });
    }
  }
  return wire;
}

export function toChatTools(tools: ReadonlyArray<ToolDescriptor>): ChatCompletionFunctionTool[] {
  return tools.map((tool) => ({
    type: "function",
    function: {
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      parameters: toolParameters(tool.inputSchema),
    },
  }));
}

export function toChatToolChoice(choice: ToolChoice): ChatCompletionToolChoiceOption {
  if (choice.mode === "specific") return { type: "function", function: { name: choice.toolName } };
  return choice.mode;
}

/** `tools` and `tool_choice` for the request; both absent when no tool is offered (the API refuses a lone choice). */
export function chatToolFields(
  tools: ReadonlyArray<ToolDescriptor>,
  choice: ToolChoice,
): { tools?: ChatCompletionFunctionTool[]; tool_choice?: ChatCompletionToolChoiceOption } {
  if (tools.length === 0) return {};
  return { tools: toChatTools(tools), tool_choice: toChatToolChoice(choice) };
}
