/** A fake Anthropic Messages server: `POST /v1/messages`, JSON or `event:` + `data:` SSE frames. */
import type { Message, RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import {
  authProblem,
  type FakeServerOptions,
  type FakeTurn,
  type FakeWire,
  finishOf,
  isObject,
  piecesOf,
  type ScriptedReply,
  type StreamEnding,
  sseFrame,
  startFakeServer,
  usageOf,
  type WireFinish,
  type WireProtocol,
  wholeOf,
} from "./shared.js";

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;

type Block = Record<string, unknown>;

function blocksOf(content: unknown): Block[] | string | undefined {
  if (typeof content === "string") return content;
  if (Array.isArray(content) && content.every(isObject)) return content as Block[];
  return undefined;
}

function validate(body: unknown, headers: Parameters<WireProtocol["validate"]>[1]): string | undefined {
  const auth = authProblem(headers);
  if (auth) return auth;
  if (!isObject(body)) return "the body must be a JSON object";
  if (typeof body.model !== "string" || body.model.length === 0) return "model: Field required";
  if (typeof body.max_tokens !== "number" || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) {
    return "max_tokens: Field required";
  }
  if (body.system !== undefined && typeof body.system !== "string" && !Array.isArray(body.system)) {
    return "system: Input should be a valid string";
  }
  const toolNames = new Set<string>();
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return "tools: Input should be a valid list";
    for (const [index, tool] of body.tools.entries()) {
      if (!isObject(tool) || typeof tool.name !== "string" || !TOOL_NAME.test(tool.name)) {
        return `tools.${index}.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`;
      }
      if (!isObject(tool.input_schema) || tool.input_schema.type !== "object") {
        return `tools.${index}.input_schema.type: Input should be 'object'`;
      }
      toolNames.add(tool.name);
    }
  }
  if (body.tool_choice !== undefined) {
    const choice = body.tool_choice;
    if (!isObject(choice) || !["auto", "any", "tool", "none"].includes(String(choice.type))) {
      return "tool_choice: Input tag does not match any of the expected tags";
    }
    if (toolNames.size === 0) return "tool_choice may only be specified while providing tools";
    if (choice.type === "tool" && !toolNames.has(String(choice.name))) {
      return `tool_choice: Tool '${String(choice.name)}' not found in tools`;
    }
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) return "messages: at least one message is required";
  // Bedrock and Vertex refuse a conversation that opens with the assistant; the fake is as strict.
  if (isObject(body.messages[0]) && body.messages[0].role !== "user") {
    return 'messages: first message must use the "user" role';
  }
  let sawToolBlocks = false;
  let previousUses: string[] = [];
  for (const [index, message] of body.messages.entries()) {
    if (!isObject(message)) return `messages.${index}: Input should be an object`;
    if (message.role !== "user" && message.role !== "assistant") {
      return `messages.${index}.role: Input should be 'user' or 'assistant'`;
    }
    const blocks = blocksOf(message.content);
    if (blocks === undefined) return `messages.${index}.content: Input should be a valid list`;
    const isLast = index === body.messages.length - 1;
    if ((blocks.length === 0 || blocks === "") && !(isLast && message.role === "assistant")) {
      return `messages.${index}: all messages must have non-empty content except for the optional final assistant message`;
    }
    const list = typeof blocks === "string" ? [] : blocks;
    for (const [at, block] of list.entries()) {
      if (block.type === "text" && (typeof block.text !== "string" || block.text.length === 0)) {
        return `messages.${index}.content.${at}: text content blocks must be non-empty`;
      }
      if (block.type === "tool_use") {
        sawToolBlocks = true;
        if (message.role !== "assistant")
          return `messages.${index}.content.${at}: tool_use blocks belong to assistant turns`;
        if (typeof block.id !== "string" || !TOOL_USE_ID.test(block.id)) {
          return `messages.${index}.content.${at}.id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
        }
        if (!isObject(block.input)) return `messages.${index}.content.${at}.input: Input should be a valid dictionary`;
      }
      if (block.type === "tool_result") {
        sawToolBlocks = true;
        if (message.role !== "user") return `messages.${index}.content.${at}: tool_result blocks belong to user turns`;
      }
    }
    if (message.role === "user") {
      const results = list.filter((block) => block.type === "tool_result").map((block) => String(block.tool_use_id));
      const unexpected = results.filter((id) => !previousUses.includes(id));
      if (unexpected.length > 0) {
        return `messages.${index}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${unexpected.join(", ")}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      }
      previousUses = [];
      continue;
    }
    const uses = list.filter((block) => block.type === "tool_use").map((block) => String(block.id));
    if (uses.length > 0) {
      const next = body.messages[index + 1];
      const nextBlocks = isObject(next) && next.role === "user" ? blocksOf(next.content) : undefined;
      const answered = new Set(
        (Array.isArray(nextBlocks) ? nextBlocks : [])
          .filter((block) => block.type === "tool_result")
          .map((block) => String(block.tool_use_id)),
      );
      const missing = uses.filter((id) => !answered.has(id));
      if (missing.length > 0) {
        return `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
    }
    previousUses = uses;
  }
  if (sawToolBlocks && toolNames.size === 0) {
    return "Requests which include `tool_use` or `tool_result` blocks must define tools.";
  }
  return undefined;
}

export const anthropicProtocol: WireProtocol = {
  name: "anthropic",
  path: "/v1/messages",
  validate,
  errorBody: (status, message) => ({
    type: "error",
    error: {
      type:
        status === 429
          ? "rate_limit_error"
          : status === 529
            ? "overloaded_error"
            : status >= 500
              ? "api_error"
              : status === 401
                ? "authentication_error"
                : "invalid_request_error",
      message,
    },
  }),
};

const STOP_REASON: Record<Exclude<WireFinish, null>, string> = {
  stop: "end_turn",
  tool_calls: "tool_use",
  length: "max_tokens",
  content_filter: "refusal",
  unknown: "pause_turn",
};

function parsedInput(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function message(turn: FakeTurn): Message {
  const finish = finishOf(turn);
  const { input, output } = usageOf(turn);
  const text = wholeOf(turn.text);
  const content = [
    ...(text.length > 0 ? [{ type: "text", text, citations: null }] : []),
    ...(turn.calls ?? []).map((call) => ({
      type: "tool_use",
      ...(call.id !== undefined ? { id: call.id } : {}),
      ...(call.name !== undefined ? { name: call.name } : {}),
      input: parsedInput(wholeOf(call.arguments, "{}")),
    })),
  ];
  return {
    id: "msg_fake",
    type: "message",
    role: "assistant",
    model: "fake-claude",
    content: content as Message["content"],
    stop_reason: (finish === null ? null : STOP_REASON[finish]) as Message["stop_reason"],
    stop_sequence: null,
    usage: { input_tokens: input, output_tokens: output } as Message["usage"],
  } as Message;
}

function events(turn: FakeTurn): RawMessageStreamEvent[] {
  const out: Array<Record<string, unknown>> = [];
  const { input, output } = usageOf(turn);
  out.push({
    type: "message_start",
    message: { ...message(turn), content: [], stop_reason: null, usage: { input_tokens: input, output_tokens: 1 } },
  });
  let index = 0;
  const text = piecesOf(turn.text);
  if (text.length > 0) {
    const at = index++;
    out.push({ type: "content_block_start", index: at, content_block: { type: "text", text: "", citations: null } });
    for (const piece of text)
      out.push({ type: "content_block_delta", index: at, delta: { type: "text_delta", text: piece } });
    out.push({ type: "content_block_stop", index: at });
  }
  for (const call of turn.calls ?? []) {
    const at = index++;
    out.push({
      type: "content_block_start",
      index: at,
      content_block: {
        type: "tool_use",
        ...(call.id !== undefined ? { id: call.id } : {}),
        ...(call.name !== undefined ? { name: call.name } : {}),
        input: {},
      },
    });
    for (const piece of piecesOf(call.arguments, "{}")) {
      out.push({ type: "content_block_delta", index: at, delta: { type: "input_json_delta", partial_json: piece } });
    }
    if (!call.partial) out.push({ type: "content_block_stop", index: at });
  }
  const finish = finishOf(turn);
  if (finish !== null) {
    out.push({
      type: "message_delta",
      delta: { stop_reason: STOP_REASON[finish], stop_sequence: null },
      usage: { output_tokens: output },
    });
    out.push({ type: "message_stop" });
  }
  return out as unknown as RawMessageStreamEvent[];
}

export const anthropicWire: FakeWire = {
  protocol: anthropicProtocol,
  json: (turn): ScriptedReply => ({ kind: "json", body: message(turn) }),
  stream: (turn, ending: StreamEnding = "end"): ScriptedReply => ({
    kind: "sse",
    frames: events(turn).map((event) => sseFrame(event, event.type)),
    ending,
  }),
};

/** An SSE stream that reports an error event (e.g. overloaded) after it started. */
export function anthropicStreamError(type: string, text: string): ScriptedReply {
  return {
    kind: "sse",
    frames: [
      sseFrame(events({ text: "" })[0], "message_start"),
      sseFrame({ type: "error", error: { type, message: text } }, "error"),
    ],
  };
}

export const startAnthropicServer = (options?: FakeServerOptions) => startFakeServer(anthropicProtocol, options);
