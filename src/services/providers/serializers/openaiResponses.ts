import type {
  EasyInputMessage,
  FunctionTool,
  ResponseCreateParams,
  ResponseFunctionToolCall,
  ResponseInputItem,
  ToolChoiceFunction,
  ToolChoiceOptions,
} from "openai/resources/responses/responses";
import type { ContextMessage, ToolChoice, ToolDescriptor } from "../../../domain/index.js";
import { toolParameters } from "../transport.js";
import { argumentsText, pairToolMessages } from "./pairing.js";

/**
 * ContextMessage[] → Responses API `input` items: messages as role items, each tool call as a
 * `function_call` item, followed by its `function_call_output` with the same `call_id`. Only these
 * three item kinds are produced (a subset of the SDK's ResponseInputItem).
 */
export type ResponsesInputItem = EasyInputMessage | ResponseFunctionToolCall | ResponseInputItem.FunctionCallOutput;

export function toResponsesInput(messages: ReadonlyArray<ContextMessage>): ResponsesInputItem[] {
  const input: ResponsesInputItem[] = [];
  for (const message of pairToolMessages(messages)) {
    if (message.role === "system" || message.role === "user") {
      input.push({ type: "message", role: message.role, content: message.content });
      continue;
    }
    if (message.content.length > 0) input.push({ type: "message", role: "assistant", content: message.content });
    for (const call of message.toolCalls) {
      input.push({ type: "function_call", call_id: call.id, name: call.name, arguments: argumentsText(call) });
    }
    for (const result of message.results) {
      input.push({ type: "function_call_output", call_id: result.callId, output: result.content });
    }
  }
  return input;
}

export function toResponsesTools(tools: ReadonlyArray<ToolDescriptor>): FunctionTool[] {
  return tools.map((tool) => ({
    type: "function",
    name: tool.name,
    ...(tool.description ? { description: tool.description } : {}),
    parameters: toolParameters(tool.inputSchema),
    // Strict mode would demand every property required and no extra ones; the schemas are the tools' own.
    strict: false,
  }));
}

export function toResponsesToolChoice(choice: ToolChoice): ToolChoiceOptions | ToolChoiceFunction {
  if (choice.mode === "specific") return { type: "function", name: choice.toolName };
  return choice.mode;
}

/** `tools` and `tool_choice`; both absent when no tool is offered. */
export function responsesToolFields(
  tools: ReadonlyArray<ToolDescriptor>,
  choice: ToolChoice,
): Pick<ResponseCreateParams, "tools" | "tool_choice"> {
  if (tools.length === 0) return {};
  return { tools: toResponsesTools(tools), tool_choice: toResponsesToolChoice(choice) };
}
