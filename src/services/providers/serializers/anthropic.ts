import type {
  ToolChoice as AnthropicToolChoice,
  ContentBlockParam,
  MessageParam,
  TextBlockParam,
  Tool,
  ToolResultBlockParam,
  ToolUseBlockParam,
} from "@anthropic-ai/sdk/resources/messages";
import type { ContextMessage, ToolCall, ToolChoice, ToolDescriptor } from "../../../domain/index.js";
import { toolParameters } from "../transport.js";
import { argumentsText, type PairedMessage, pairToolMessages } from "./pairing.js";

/**
 * ContextMessage[] → Anthropic Messages: system messages become the top-level `system`; an
 * assistant turn's `tool_use` blocks are answered by ALL their `tool_result` blocks at the start
 * of the next user turn (`is_error: true` for failed results); consecutive turns of one role are
 * merged, as the API wants alternating roles. The conversation always opens with a user turn:
 * Bedrock and Vertex refuse one that opens with the assistant, which a context trimmed to its
 * budget can do (the user turn that started it was compacted or dropped).
 */

export interface AnthropicConversation {
  readonly system?: string;
  readonly messages: MessageParam[];
}

/** The API accepts only `[a-zA-Z0-9_-]` in tool_use ids. */
const VALID_ID = /^[a-zA-Z0-9_-]{1,200}$/;
const EMPTY_TEXT = "(empty)";

/** Opens a conversation whose first kept turn is the assistant's: says what is missing, claims nothing else. */
export const EARLIER_TURNS_LEFT_OUT =
  "[The earlier turns of this conversation are not included in this request; it continues with the assistant's turn below.]";

/** Maps call ids onto ids the API accepts, consistently for one request (a call and its result keep matching). */
function idMapper() {
  const mapped = new Map<string, string>();
  const taken = new Set<string>();
  return (id: string): string => {
    const known = mapped.get(id);
    if (known) return known;
    const base = VALID_ID.test(id) ? id : id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 180) || "call";
    let candidate = base;
    for (let n = 2; taken.has(candidate); n++) candidate = `${base}_${n}`;
    mapped.set(id, candidate);
    taken.add(candidate);
    return candidate;
  };
}

/** `tool_use.input` must be an object: a raw (non-JSON) argument string or a non-object value is wrapped. */
function toolInput(call: ToolCall): Record<string, unknown> {
  const args = call.arguments;
  if (typeof args === "string") return { invalid_arguments: args };
  if (args === null || typeof args !== "object" || Array.isArray(args)) return { arguments: args };
  return args as Record<string, unknown>;
}

const text = (value: string): TextBlockParam => ({ type: "text", text: value.length > 0 ? value : EMPTY_TEXT });

/** Without tools on the request the API refuses tool blocks: the history is then told as text. */
function flattened(message: Extract<PairedMessage, { role: "assistant" }>): { assistant: string; results: string } {
  const calls = message.toolCalls.map((call) => `[called ${call.name} (${call.id}) with ${argumentsText(call)}]`);
  const results = message.results.map(
    (result) =>
      `[result of ${result.toolName} (${result.callId})${result.isError ? ", an error" : ""}]\n${result.content}`,
  );
  return {
    assistant: [message.content, ...calls].filter((part) => part.length > 0).join("\n"),
    results: results.join("\n\n"),
  };
}

export function toAnthropicConversation(
  messages: ReadonlyArray<ContextMessage>,
  options: { readonly toolsOffered: boolean } = { toolsOffered: true },
): AnthropicConversation {
  const system: string[] = [];
  const turns: Array<{ role: "user" | "assistant"; content: ContentBlockParam[] }> = [];
  const idOf = idMapper();
  const push = (role: "user" | "assistant", blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = turns[turns.length - 1];
    if (last && last.role === role) {
      // tool_result blocks lead a user turn; text that came before them moves behind.
      const results = blocks.filter((block) => block.type === "tool_result");
      const others = blocks.filter((block) => block.type !== "tool_result");
      const leading = last.content.filter((block) => block.type === "tool_result");
      const rest = last.content.filter((block) => block.type !== "tool_result");
      last.content = [...leading, ...results, ...rest, ...others];
    } else {
      turns.push({ role, content: blocks });
    }
  };

  for (const message of pairToolMessages(messages)) {
    if (message.role === "system") {
      if (message.content.length > 0) system.push(message.content);
      continue;
    }
    if (message.role === "user") {
      push("user", [text(message.content)]);
      continue;
    }
    if (message.toolCalls.length === 0) {
      if (message.content.length > 0) push("assistant", [text(message.content)]);
      continue;
    }
    if (!options.toolsOffered) {
      const told = flattened(message);
      push("assistant", [text(told.assistant)]);
      push("user", [text(told.results)]);
      continue;
    }
    const uses: ToolUseBlockParam[] = message.toolCalls.map((call) => ({
      type: "tool_use",
      id: idOf(call.id),
      name: call.name,
      input: toolInput(call),
    }));
    push("assistant", [...(message.content.length > 0 ? [text(message.content)] : []), ...uses]);
    const results: ToolResultBlockParam[] = message.results.map((result) => ({
      type: "tool_result",
      tool_use_id: idOf(result.callId),
      content: result.content.length > 0 ? result.content : EMPTY_TEXT,
      ...(result.isError ? { is_error: true } : {}),
    }));
    push("user", results);
  }
  if (turns[0]?.role === "assistant") turns.unshift({ role: "user", content: [text(EARLIER_TURNS_LEFT_OUT)] });
  return {
    ...(system.length > 0 ? { system: system.join("\n\n") } : {}),
    messages: turns.map((turn) => ({ role: turn.role, content: turn.content })),
  };
}

export function toAnthropicTools(tools: ReadonlyArray<ToolDescriptor>): Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    ...(tool.description ? { description: tool.description } : {}),
    input_schema: { type: "object", ...toolParameters(tool.inputSchema) } as Tool.InputSchema,
  }));
}

export function toAnthropicToolChoice(choice: ToolChoice): AnthropicToolChoice {
  switch (choice.mode) {
    case "auto":
      return { type: "auto" };
    case "required":
      return { type: "any" };
    case "none":
      return { type: "none" };
    case "specific":
      return { type: "tool", name: choice.toolName };
  }
}

/** `tools` and `tool_choice`; both absent when no tool is offered. */
export function anthropicToolFields(
  tools: ReadonlyArray<ToolDescriptor>,
  choice: ToolChoice,
): { tools?: Tool[]; tool_choice?: AnthropicToolChoice } {
  if (tools.length === 0) return {};
  return { tools: toAnthropicTools(tools), tool_choice: toAnthropicToolChoice(choice) };
}
