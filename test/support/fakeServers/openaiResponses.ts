/** A fake OpenAI Responses server: `POST /v1/responses`, JSON or typed SSE events (`event:` + `data:`). */
import type { Response, ResponseStreamEvent } from "openai/resources/responses/responses";
import {
  authProblem,
  type FakeCall,
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
  type WireProtocol,
  wholeOf,
} from "./shared.js";

function validate(body: unknown, headers: Parameters<WireProtocol["validate"]>[1]): string | undefined {
  const auth = authProblem(headers);
  if (auth) return auth;
  if (!isObject(body)) return "the body must be a JSON object";
  if (typeof body.model !== "string" || body.model.length === 0) return "Missing required parameter: 'model'.";
  if (typeof body.input !== "string" && !Array.isArray(body.input)) return "Missing required parameter: 'input'.";
  const toolNames = new Set<string>();
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return "'tools' must be an array";
    for (const tool of body.tools) {
      if (!isObject(tool) || tool.type !== "function" || typeof tool.name !== "string") {
        return "tools: each tool must be a named function";
      }
      if (tool.parameters !== undefined && tool.parameters !== null && !isObject(tool.parameters)) {
        return `tools: parameters of ${tool.name} must be a JSON Schema object`;
      }
      toolNames.add(tool.name);
    }
  }
  if (isObject(body.tool_choice)) {
    if (body.tool_choice.type !== "function" || !toolNames.has(String(body.tool_choice.name))) {
      return `Tool choice '${String(body.tool_choice.name)}' not found in 'tools' parameter.`;
    }
  } else if (body.tool_choice !== undefined && !["auto", "required", "none"].includes(String(body.tool_choice))) {
    return `Invalid value for 'tool_choice': ${String(body.tool_choice)}`;
  }
  if (!Array.isArray(body.input)) return undefined;
  const calls = new Map<string, boolean>();
  for (const [index, item] of body.input.entries()) {
    if (!isObject(item)) return `input[${index}] must be an object`;
    if (item.type === "function_call") {
      if (typeof item.call_id !== "string" || item.call_id.length === 0) return `input[${index}]: missing call_id`;
      if (typeof item.name !== "string" || typeof item.arguments !== "string") {
        return `input[${index}]: a function_call needs a name and string arguments`;
      }
      calls.set(item.call_id, false);
    } else if (item.type === "function_call_output") {
      const id = String(item.call_id);
      if (!calls.has(id)) return `No tool call found for function call output with call_id ${id}.`;
      if (typeof item.output !== "string" && !Array.isArray(item.output)) return `input[${index}]: output is required`;
      calls.set(id, true);
    } else if (item.type === undefined || item.type === "message") {
      if (!["user", "system", "developer", "assistant"].includes(String(item.role))) {
        return `input[${index}]: invalid role ${String(item.role)}`;
      }
      if (typeof item.content !== "string" && !Array.isArray(item.content))
        return `input[${index}]: content is required`;
    } else {
      return `input[${index}]: unsupported item type ${String(item.type)}`;
    }
  }
  for (const [id, answered] of calls) if (!answered) return `No tool output found for function call ${id}.`;
  return undefined;
}

export const openAIResponsesProtocol: WireProtocol = {
  name: "openai-responses",
  path: "/v1/responses",
  validate,
  errorBody: openAIErrorBody,
};

function openAIErrorBody(status: number, message: string) {
  return {
    error: {
      message,
      type: status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error",
      param: null,
      code: null,
    },
  };
}

type OutputItem = Response["output"][number];

function callItem(call: FakeCall, index: number, done: boolean): OutputItem {
  return {
    type: "function_call",
    id: `fc_${index}`,
    ...(call.id !== undefined ? { call_id: call.id } : {}),
    ...(call.name !== undefined ? { name: call.name } : {}),
    arguments: done ? wholeOf(call.arguments, "{}") : "",
    status: done ? "completed" : "in_progress",
  } as OutputItem;
}

function messageItem(text: string): OutputItem {
  return {
    type: "message",
    id: "msg_0",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text, annotations: [] }],
  };
}

/** The whole output, as the terminal event or the JSON reply carries it. */
function outputOf(turn: FakeTurn): OutputItem[] {
  const text = wholeOf(turn.text);
  const items: OutputItem[] = text.length > 0 ? [messageItem(text)] : [];
  (turn.calls ?? []).forEach((call) => {
    const item = callItem(call, items.length, true);
    items.push(call.partial ? ({ ...item, status: "incomplete" } as OutputItem) : item);
  });
  return items;
}

function responseOf(turn: FakeTurn): Response {
  const finish = finishOf(turn);
  const { input, output } = usageOf(turn);
  const status = finish === "stop" || finish === "tool_calls" || finish === null ? "completed" : "incomplete";
  const reason =
    finish === "length"
      ? "max_output_tokens"
      : finish === "content_filter"
        ? "content_filter"
        : finish === "unknown"
          ? "mystery_reason"
          : undefined;
  return {
    id: "resp_fake",
    object: "response",
    created_at: 1_700_000_000,
    model: "fake-responses-model",
    status,
    error: null,
    incomplete_details: reason ? ({ reason } as Response["incomplete_details"]) : null,
    instructions: null,
    metadata: null,
    output: outputOf(turn),
    output_text: wholeOf(turn.text),
    parallel_tool_calls: true,
    temperature: null,
    tool_choice: "auto",
    tools: [],
    top_p: null,
    usage: {
      input_tokens: input,
      output_tokens: output,
      total_tokens: input + output,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
  };
}

function events(turn: FakeTurn): ResponseStreamEvent[] {
  let sequence = 0;
  const out: ResponseStreamEvent[] = [];
  const push = (event: Record<string, unknown>) =>
    out.push({ ...event, sequence_number: sequence++ } as unknown as ResponseStreamEvent);
  const created = { ...responseOf(turn), status: "in_progress", output: [], usage: undefined };
  push({ type: "response.created", response: created });
  const text = piecesOf(turn.text);
  let outputIndex = 0;
  if (text.length > 0) {
    const index = outputIndex++;
    push({
      type: "response.output_item.added",
      output_index: index,
      item: { ...messageItem(""), status: "in_progress", content: [] },
    });
    for (const delta of text) {
      push({
        type: "response.output_text.delta",
        item_id: "msg_0",
        output_index: index,
        content_index: 0,
        delta,
        logprobs: [],
      });
    }
    push({ type: "response.output_item.done", output_index: index, item: messageItem(text.join("")) });
  }
  for (const call of turn.calls ?? []) {
    const index = outputIndex++;
    push({ type: "response.output_item.added", output_index: index, item: callItem(call, index, false) });
    for (const delta of piecesOf(call.arguments, "{}")) {
      push({ type: "response.function_call_arguments.delta", item_id: `fc_${index}`, output_index: index, delta });
    }
    if (call.partial) continue;
    push({
      type: "response.function_call_arguments.done",
      item_id: `fc_${index}`,
      output_index: index,
      name: call.name ?? "",
      arguments: wholeOf(call.arguments, "{}"),
    });
    push({ type: "response.output_item.done", output_index: index, item: callItem(call, index, true) });
  }
  const finish = finishOf(turn);
  if (finish !== null) {
    const response = responseOf(turn);
    push({ type: response.status === "completed" ? "response.completed" : "response.incomplete", response });
  }
  return out;
}

export const openAIResponsesWire: FakeWire = {
  protocol: openAIResponsesProtocol,
  json: (turn): ScriptedReply => ({ kind: "json", body: responseOf(turn) }),
  stream: (turn, ending: StreamEnding = "end"): ScriptedReply => ({
    kind: "sse",
    frames: events(turn).map((event) => sseFrame(event, event.type)),
    ending,
  }),
};

/** A `response.failed` stream with the server's error. */
export function failedResponseStream(code: string, message: string): ScriptedReply {
  const response = { ...responseOf({ text: "" }), status: "failed", error: { code, message } };
  return {
    kind: "sse",
    frames: [sseFrame({ type: "response.failed", sequence_number: 0, response }, "response.failed")],
  };
}

export const startOpenAIResponsesServer = (options?: FakeServerOptions) =>
  startFakeServer(openAIResponsesProtocol, options);
