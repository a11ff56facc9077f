/**
 * Pure validators for the tool-call pairing rules of the three wire protocols, and literal
 * (non-repairing) translations of ContextMessage[] into each wire shape. The serializers repair
 * pairing themselves, so a context is checked through the literal translations: what the
 * builder produced must already be valid, not made valid on the way out.
 *
 * Each validator returns the problems it found as readable strings (empty: valid).
 */
import type { ContextMessage } from "../../src/domain/index.js";

// --- OpenAI Chat Completions -------------------------------------------------------------------

export interface ChatWireMessage {
  readonly role: string;
  readonly content?: unknown;
  readonly tool_calls?: ReadonlyArray<{ readonly id: string }>;
  readonly tool_call_id?: string;
}

/**
 * Every assistant tool call is answered by exactly one `tool` message with its id, before the
 * next non-tool message; no `tool` message without a pending call of the assistant message
 * before it; call ids are unique; an assistant message has content or tool calls.
 */
export function chatProblems(messages: ReadonlyArray<ChatWireMessage>): string[] {
  const problems: string[] = [];
  const seenCalls = new Set<string>();
  let pending = new Set<string>();
  let answered = new Set<string>();
  let inGroup = false;
  const closeGroup = (at: number) => {
    for (const id of pending) problems.push(`chat: call ${id} has no tool message before message ${at}`);
    pending = new Set();
    answered = new Set();
    inGroup = false;
  };
  messages.forEach((message, index) => {
    if (message.role === "tool") {
      const id = message.tool_call_id ?? "";
      if (!inGroup) problems.push(`chat: tool message ${index} (${id}) does not follow an assistant tool-call message`);
      else if (answered.has(id)) problems.push(`chat: tool message ${index} answers call ${id} a second time`);
      else if (!pending.has(id))
        problems.push(`chat: tool message ${index} answers ${id}, not a call of its assistant`);
      pending.delete(id);
      answered.add(id);
      return;
    }
    closeGroup(index);
    if (message.role !== "assistant") return;
    const calls = message.tool_calls ?? [];
    const hasContent = typeof message.content === "string" && message.content.length > 0;
    if (calls.length === 0 && !hasContent)
      problems.push(`chat: assistant message ${index} has neither content nor calls`);
    if (calls.length === 0) return;
    inGroup = true;
    for (const call of calls) {
      if (seenCalls.has(call.id)) problems.push(`chat: call id ${call.id} is used twice`);
      seenCalls.add(call.id);
      pending.add(call.id);
    }
  });
  closeGroup(messages.length);
  return problems;
}

// --- OpenAI Responses ------------------------------------------------------------------------

export type ResponsesWireItem =
  | { readonly type: "message"; readonly role: string; readonly content: unknown }
  | { readonly type: "function_call"; readonly call_id: string; readonly name?: string; readonly arguments?: string }
  | { readonly type: "function_call_output"; readonly call_id: string; readonly output?: unknown };

/** Every function_call has exactly one function_call_output with its call_id after it; no orphan or duplicate output. */
export function responsesProblems(
  items: ReadonlyArray<{ readonly type?: string; readonly call_id?: string | null }>,
): string[] {
  const problems: string[] = [];
  const calls = new Set<string>();
  const outputs = new Set<string>();
  items.forEach((item, index) => {
    if (item.type === "function_call") {
      const id = item.call_id ?? "";
      if (calls.has(id)) problems.push(`responses: function_call ${id} appears twice`);
      calls.add(id);
    } else if (item.type === "function_call_output") {
      const id = item.call_id ?? "";
      if (!calls.has(id)) problems.push(`responses: output ${index} (${id}) has no function_call before it`);
      else if (outputs.has(id)) problems.push(`responses: call ${id} has two outputs`);
      outputs.add(id);
    }
  });
  for (const id of calls) if (!outputs.has(id)) problems.push(`responses: function_call ${id} has no output`);
  return problems;
}

// --- Anthropic Messages ----------------------------------------------------------------------

export interface AnthropicWireBlock {
  readonly type: string;
  readonly id?: string;
  readonly tool_use_id?: string;
  readonly text?: string;
}

export interface AnthropicWireMessage {
  /** `system` entries stand for system text found in the conversation; allowed only at its start. */
  readonly role: "user" | "assistant" | "system";
  readonly content: string | ReadonlyArray<AnthropicWireBlock>;
}

/**
 * After an assistant message with tool_use blocks, the next message(s) before another assistant
 * message carry a tool_result for every tool_use id; a tool_result answers a tool_use of the
 * assistant message before it (once); tool_use ids are unique; system only at the start;
 * no message or text block is empty.
 */
export function anthropicProblems(messages: ReadonlyArray<AnthropicWireMessage>): string[] {
  const problems: string[] = [];
  const seenUses = new Set<string>();
  let pending = new Set<string>();
  let uses = new Set<string>();
  let answered = new Set<string>();
  let started = false;
  const closeTurn = (at: number) => {
    for (const id of pending) problems.push(`anthropic: tool_use ${id} has no tool_result before message ${at}`);
    pending = new Set();
    uses = new Set();
    answered = new Set();
  };
  messages.forEach((message, index) => {
    if (message.role === "system") {
      if (started) problems.push(`anthropic: system message ${index} is not at the start`);
      return;
    }
    started = true;
    const blocks: ReadonlyArray<AnthropicWireBlock> =
      typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    if (blocks.length === 0) problems.push(`anthropic: message ${index} has no content`);
    for (const block of blocks) {
      if (block.type === "text" && !(block.text ?? "").length) problems.push(`anthropic: empty text block in ${index}`);
    }
    if (message.role === "assistant") {
      closeTurn(index);
      for (const block of blocks) {
        if (block.type === "tool_result") problems.push(`anthropic: tool_result in assistant message ${index}`);
        if (block.type !== "tool_use") continue;
        const id = block.id ?? "";
        if (seenUses.has(id)) problems.push(`anthropic: tool_use id ${id} is used twice`);
        seenUses.add(id);
        uses.add(id);
        pending.add(id);
      }
      return;
    }
    for (const block of blocks) {
      if (block.type === "tool_use") problems.push(`anthropic: tool_use in user message ${index}`);
      if (block.type !== "tool_result") continue;
      const id = block.tool_use_id ?? "";
      if (!uses.has(id))
        problems.push(`anthropic: tool_result ${id} in ${index} has no tool_use in the assistant turn before`);
      else if (answered.has(id)) problems.push(`anthropic: tool_use ${id} is answered twice`);
      pending.delete(id);
      answered.add(id);
    }
  });
  closeTurn(messages.length);
  return problems;
}

// --- Literal translations of ContextMessage[] -------------------------------------------------

const argumentsText = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

/** One wire message per context message, nothing repaired, moved or dropped. */
export function literalChat(messages: ReadonlyArray<ContextMessage>): ChatWireMessage[] {
  return messages.map((message): ChatWireMessage => {
    switch (message.role) {
      case "assistant":
        return message.toolCalls.length === 0
          ? { role: "assistant", content: message.content }
          : {
              role: "assistant",
              content: message.content.length > 0 ? message.content : null,
              tool_calls: message.toolCalls.map((call) => ({ id: call.id })),
            };
      case "tool":
        return { role: "tool", tool_call_id: message.callId, content: message.content };
      default:
        return { role: message.role, content: message.content };
    }
  });
}

export function literalResponses(messages: ReadonlyArray<ContextMessage>): ResponsesWireItem[] {
  return messages.flatMap((message): ResponsesWireItem[] => {
    switch (message.role) {
      case "assistant":
        return [
          ...(message.content.length > 0 || message.toolCalls.length === 0
            ? [{ type: "message" as const, role: "assistant", content: message.content }]
            : []),
          ...message.toolCalls.map((call) => ({
            type: "function_call" as const,
            call_id: call.id,
            name: call.name,
            arguments: argumentsText(call.arguments),
          })),
        ];
      case "tool":
        return [{ type: "function_call_output", call_id: message.callId, output: message.content }];
      default:
        return [{ type: "message", role: message.role, content: message.content }];
    }
  });
}

/** One wire message per context message (tool results become user messages with one tool_result block). */
export function literalAnthropic(messages: ReadonlyArray<ContextMessage>): AnthropicWireMessage[] {
  return messages.map((message): AnthropicWireMessage => {
    switch (message.role) {
      case "assistant":
        return {
          role: "assistant",
          content: [
            ...(message.content.length > 0 ? [{ type: "text", text: message.content }] : []),
            ...message.toolCalls.map((call) => ({ type: "tool_use", id: call.id })),
          ],
        };
      case "tool":
        return { role: "user", content: [{ type: "tool_result", tool_use_id: message.callId }] };
      default:
        return { role: message.role, content: message.content };
    }
  });
}

/** The problems of a context under all three protocols, each prefixed with its protocol. */
export function wireProblems(messages: ReadonlyArray<ContextMessage>): string[] {
  return [
    ...chatProblems(literalChat(messages)),
    ...responsesProblems(literalResponses(messages)),
    ...anthropicProblems(literalAnthropic(messages)),
  ];
}
