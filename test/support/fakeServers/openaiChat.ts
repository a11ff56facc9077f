/** A fake OpenAI Chat Completions server: `POST /v1/chat/completions`, JSON or `data:` SSE ending with `[DONE]`. */
import type { ChatCompletion, ChatCompletionChunk } from "openai/resources/chat/completions";
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

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function validate(body: unknown, headers: Parameters<WireProtocol["validate"]>[1]): string | undefined {
  const auth = authProblem(headers);
  if (auth) return auth;
  if (!isObject(body)) return "the body must be a JSON object";
  if (typeof body.model !== "string" || body.model.length === 0) return "you must provide a model parameter";
  if (!Array.isArray(body.messages) || body.messages.length === 0) return "'messages' must be a non-empty array";
  if (body.stream_options !== undefined && body.stream !== true) {
    return "The 'stream_options' parameter is only allowed when 'stream' is enabled.";
  }
  const toolNames = new Set<string>();
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools) || body.tools.length === 0) return "'tools' must be a non-empty array";
    for (const tool of body.tools) {
      if (!isObject(tool) || tool.type !== "function" || !isObject(tool.function))
        return "tools: each tool must be a function";
      const name = tool.function.name;
      if (typeof name !== "string" || !TOOL_NAME.test(name)) return `tools: invalid function name ${String(name)}`;
      if (tool.function.parameters !== undefined && !isObject(tool.function.parameters)) {
        return `tools: parameters of ${name} must be a JSON Schema object`;
      }
      toolNames.add(name);
    }
  }
  if (body.tool_choice !== undefined) {
    if (toolNames.size === 0) {
      return "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.";
    }
    const choice = body.tool_choice;
    if (isObject(choice)) {
      const name = isObject(choice.function) ? choice.function.name : undefined;
      if (choice.type !== "function" || typeof name !== "string" || !toolNames.has(name)) {
        return `Invalid value for 'tool_choice': no function named ${String(name)} in 'tools'.`;
      }
    } else if (!["auto", "required", "none"].includes(String(choice))) {
      return `Invalid value for 'tool_choice': ${String(choice)}`;
    }
  }
  let pending: Set<string> | undefined;
  const unanswered = () =>
    `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...(pending ?? [])].join(", ")}`;
  for (const [index, message] of body.messages.entries()) {
    if (!isObject(message)) return `messages[${index}] must be an object`;
    if (message.role === "tool") {
      const id = message.tool_call_id;
      if (typeof id !== "string" || !pending?.has(id)) {
        return `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (messages[${index}], tool_call_id ${String(id)})`;
      }
      if (typeof message.content !== "string" && !Array.isArray(message.content)) {
        return `messages[${index}].content must be a string`;
      }
      pending.delete(id);
      continue;
    }
    if (pending && pending.size > 0) return unanswered();
    pending = undefined;
    if (!["system", "developer", "user", "assistant"].includes(String(message.role))) {
      return `messages[${index}]: invalid role ${String(message.role)}`;
    }
    const calls = message.role === "assistant" ? message.tool_calls : undefined;
    if (Array.isArray(calls) && calls.length > 0) {
      pending = new Set();
      for (const call of calls) {
        if (!isObject(call) || typeof call.id !== "string" || call.id.length === 0) {
          return `messages[${index}].tool_calls: each call needs an id`;
        }
        if (call.type !== "function" || !isObject(call.function) || typeof call.function.name !== "string") {
          return `messages[${index}].tool_calls: each call needs a function name`;
        }
        if (typeof call.function.arguments !== "string") {
          return `messages[${index}].tool_calls: function.arguments must be a string`;
        }
        pending.add(call.id);
      }
    } else if (typeof message.content !== "string" && !Array.isArray(message.content)) {
      return `messages[${index}]: content is required`;
    }
  }
  if (pending && pending.size > 0) return unanswered();
  return undefined;
}

export const openAIChatProtocol: WireProtocol = {
  name: "openai-chat",
  path: "/v1/chat/completions",
  validate,
  errorBody: (status, message) => ({
    error: {
      message,
      type: status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error",
      param: null,
      code: null,
    },
  }),
};

const WIRE_FINISH: Record<Exclude<WireFinish, null>, string> = {
  stop: "stop",
  tool_calls: "tool_calls",
  length: "length",
  content_filter: "content_filter",
  unknown: "mystery_reason",
};

const base = { id: "chatcmpl-fake", created: 1_700_000_000, model: "fake-chat-model" };

function usage(turn: FakeTurn) {
  const { input, output } = usageOf(turn);
  return { prompt_tokens: input, completion_tokens: output, total_tokens: input + output };
}

function completion(turn: FakeTurn): ChatCompletion {
  const finish = finishOf(turn);
  const text = wholeOf(turn.text);
  const calls = (turn.calls ?? []).map((call) => ({
    ...(call.id !== undefined ? { id: call.id } : {}),
    type: "function",
    function: { ...(call.name !== undefined ? { name: call.name } : {}), arguments: wholeOf(call.arguments, "{}") },
  }));
  return {
    ...base,
    object: "chat.completion",
    choices: [
      {
        index: 0,
        logprobs: null,
        finish_reason: (finish === null ? null : WIRE_FINISH[finish]) as ChatCompletion.Choice["finish_reason"],
        message: {
          role: "assistant",
          content: text.length > 0 ? text : null,
          refusal: null,
          ...(calls.length > 0 ? { tool_calls: calls as ChatCompletion.Choice["message"]["tool_calls"] } : {}),
        },
      },
    ],
    usage: usage(turn),
  };
}

function chunk(delta: Record<string, unknown>, finish: string | null = null): ChatCompletionChunk {
  return {
    ...base,
    object: "chat.completion.chunk",
    choices: [{ index: 0, delta: delta as ChatCompletionChunk.Choice["delta"], finish_reason: finish as never }],
  };
}

function chunks(turn: FakeTurn): ChatCompletionChunk[] {
  const out: ChatCompletionChunk[] = [chunk({ role: "assistant", content: "" })];
  for (const piece of piecesOf(turn.text)) out.push(chunk({ content: piece }));
  (turn.calls ?? []).forEach((call, index) => {
    const [first = "", ...rest] = piecesOf(call.arguments, "{}");
    out.push(
      chunk({
        tool_calls: [
          {
            index,
            ...(call.id !== undefined ? { id: call.id } : {}),
            type: "function",
            function: { ...(call.name !== undefined ? { name: call.name } : {}), arguments: first },
          },
        ],
      }),
    );
    for (const piece of rest) out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  const finish = finishOf(turn);
  if (finish !== null) {
    out.push(chunk({}, WIRE_FINISH[finish]));
    out.push({ ...base, object: "chat.completion.chunk", choices: [], usage: usage(turn) });
  }
  return out;
}

export const openAIChatWire: FakeWire = {
  protocol: openAIChatProtocol,
  json: (turn): ScriptedReply => ({ kind: "json", body: completion(turn) }),
  stream: (turn, ending: StreamEnding = "end"): ScriptedReply => {
    const frames = chunks(turn).map((data) => sseFrame(data));
    if (finishOf(turn) !== null) frames.push(sseFrame("[DONE]"));
    return { kind: "sse", frames, ending };
  },
};

export const startOpenAIChatServer = (options?: FakeServerOptions) => startFakeServer(openAIChatProtocol, options);
